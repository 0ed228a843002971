"""ament_python package orca_ros: `colcon build` in a ROS 2 workspace, or `pip install .[ros]`."""

from glob import glob

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

package_name = "orca_ros"


class BuildExt(build_ext):
    """Compile the C extensions with floating-point contraction off: ``a * b + c`` is
    then rounded twice, as Python and RVO2 round it, never fused into one FMA (which
    GCC and Clang do by default where the CPU has it, on aarch64 for example)."""

    def build_extensions(self):
        flags = ["/fp:precise"] if self.compiler.compiler_type == "msvc" \
            else ["-ffp-contract=off", "-fno-fast-math"]
        for extension in self.extensions:
            extension.extra_compile_args = flags + list(extension.extra_compile_args or [])
        super().build_extensions()


# The robot cycle's hot path in C, plain C against the Python C API (a C compiler and
# the Python headers): ORCA (RVO2's computeNewVelocity), perception and the safety
# filter in orca_ros/core/orca/_orca2d.c; the preferred velocity's geometry in
# orca_ros/core/robot/_guidance.c; the neighbours' state batches read from their bytes in
# orca_ros/nodes/_state_batch.c. All take Python's arithmetic and argument errors from
# orca_ros/core/pymath.h and pyargs.h; the wall distances both ORCA's and guidance's
# extensions compute from orca_ros/core/segments.h.
SHARED_C = {"include_dirs": ["orca_ros/core"],
            "depends": ["orca_ros/core/pymath.h", "orca_ros/core/pyargs.h",
                        "orca_ros/core/segments.h"]}
EXTENSIONS = [Extension("orca_ros.core.orca._orca2d", ["orca_ros/core/orca/_orca2d.c"], **SHARED_C),
              Extension("orca_ros.core.robot._guidance", ["orca_ros/core/robot/_guidance.c"],
                        **SHARED_C),
              Extension("orca_ros.nodes._state_batch", ["orca_ros/nodes/_state_batch.c"],
                        **SHARED_C)]

# ROS 2 from PyPI wheels, for machines without a ROS install. Users of a
# system ROS 2 (apt, source) install without this extra.
ROS_WHEELS = [
    "ros-rclpy", "ros-rmw-fastrtps-cpp", "ros-geometry-msgs", "ros-nav-msgs", "ros-std-msgs",
    "ros-visualization-msgs", "ros-diagnostic-msgs", "ros-sensor-msgs", "ros-rosgraph-msgs",
]
# ROS 2 Jazzy from PyPI wheels instead (the `jazzy` extra, without `ros`): these
# meta-packages pin the ros-* wheels to Jazzy's releases.
JAZZY_WHEELS = [
    "ros-jazzy-rclpy[fastrtps]", "ros-jazzy-geometry-msgs", "ros-jazzy-nav-msgs",
    "ros-jazzy-std-msgs", "ros-jazzy-visualization-msgs", "ros-jazzy-diagnostic-msgs",
    "ros-jazzy-sensor-msgs", "ros-jazzy-rosgraph-msgs",
]

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    ext_modules=EXTENSIONS,
    cmdclass={"build_ext": BuildExt},
    # scenarios/public: the public benchmark scenarios, with NOTICE.md (their licences).
    package_data={package_name: ["scenarios/*.yaml", "scenarios/maps/*.yaml",
                                 "scenarios/maps/*.pgm", "scenarios/public/*.yaml",
                                 "scenarios/public/NOTICE.md",
                                 "scenarios/public/cocoon/*.yaml",
                                 "core/sim/physics/models/*.xml"]},
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        ("share/" + package_name + "/config", glob("config/*.yaml") + glob("config/*.rviz")),
        ("share/" + package_name + "/config/nav2", glob("config/nav2/*")),
        ("share/" + package_name + "/config/gazebo", glob("config/gazebo/*")),
        # fleet_sim engine mujoco's robot models, to copy and adapt (robot_model_*)
        ("share/" + package_name + "/mujoco", glob("orca_ros/core/sim/physics/models/*.xml")),
    ],
    python_requires=">=3.10",
    # scikit-image, shapely and Pillow: walls from occupancy maps (orca_ros/core/maps).
    install_requires=["setuptools", "numpy", "scipy", "PyYAML", "tqdm", "matplotlib",
                      "scikit-image", "shapely", "Pillow"],
    extras_require={
        "ros": ROS_WHEELS,
        "jazzy": JAZZY_WHEELS,
        # ROS 2 bags: recording (orca-ros sim --record) and reading (orca-ros plot), in MCAP.
        "bag": ["mcap", "mcap-ros2-support"],
        # rosbags: an independent reader and writer of bags, for the tests.
        # pytest < 9: launch_testing's pytest plugin (3.7, Kilted) breaks with pytest 9.
        "test": ["pytest<9", "hypothesis", "ruff", "rosbags"],
        # The physics engine behind fleet_sim (engine: mujoco, orca-ros sim --engine mujoco).
        "physics": ["mujoco"],
        # Real toio cubes over BLE (Linux: BlueZ).
        "toio": ["bleak"],
        # Peer libraries for side-by-side figures (orca-ros bench-scaling, bench --compare):
        # navground's C++ ORCA, HRVO and HL.
        "peers": ["navground"],
        # The documentation site (doc/), as the ROS 2 buildfarm's rosdoc2 builds it.
        "doc": ["sphinx", "myst-parser"],
    },
    zip_safe=False,  # a compiled extension
    maintainer="orca_ros maintainers",
    maintainer_email="maintainers@orca-ros.invalid",
    description="ORCA multi-robot collision avoidance for ROS 2",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "orca-ros = orca_ros.tools.cli:main",
            # orca_ros.nodes.scripts: SIGINT/SIGTERM handled from before the heavy imports.
            "orca_node = orca_ros.nodes.scripts:orca_node",
            "orca_lifecycle_node = orca_ros.nodes.scripts:orca_lifecycle_node",
            "orca_robots = orca_ros.nodes.scripts:orca_robots",
            "fleet_sim = orca_ros.nodes.scripts:fleet_sim",
            "obstacle_server = orca_ros.nodes.scripts:obstacle_server",
            "supervisor_node = orca_ros.nodes.scripts:supervisor_node",
            "toio_bridge = orca_ros.nodes.scripts:toio_bridge",
            "straight_driver = orca_ros.nodes.scripts:straight_driver",
        ],
        # Avoidance methods and world backends, found through these groups (another
        # package adds its own the same way); orca_ros.core.methods.plugins.BUILT_IN
        # lists the same, in the same order, and loads them without the metadata too.
        "orca_ros.methods": [
            "orca = orca_ros.core.methods.orca:register",  # orca, orca_strict
            "direct = orca_ros.core.methods.direct:register",
            "navigator = orca_ros.core.methods.navigator:register",  # hlavoid, boids, ...
            "rvo_sampling = orca_ros.core.methods.rvo_sampling:register",
            "hrvo = orca_ros.core.methods.hrvo:register",
            "rfunction = orca_ros.core.methods.rfunction:register",
        ],
        "orca_ros.world_backends": [
            "rvo2 = orca_ros.core.sim.backends.rvo2:register",
        ],
    },
)
