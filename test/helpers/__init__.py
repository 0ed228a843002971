"""Helpers shared by the tests (not tests themselves).

``test/conftest.py`` puts ``test/`` on ``sys.path``, so a test anywhere under
``test/`` imports them as ``from helpers.<module> import ...``:

- ``paths``: the repository's folders (REPO, TEST_DIR, DATA_DIR, LAUNCH_DIR).
- ``ros_helpers``: RosHarness (rclpy nodes in-process, one context per test), params,
  latest_status. Importing it skips the test without rclpy.
- ``orca_rig``: an orca_node in /me driven by the test (Rig, odom, goal); needs rclpy.
- ``launch_stubs``: stand-ins for the launch modules, to run a launch file's
  ``generate_launch_description`` without the launch engine.
- ``executables``: the console scripts of setup.py, run with this interpreter.
- ``scenarios``: small scenarios several test modules use.
- ``geometry``: half-plane and LINE_LIST helpers.
"""
