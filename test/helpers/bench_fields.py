"""The fields every ``orca-ros bench`` row has beyond the contract's."""

MOTION_FIELDS = {"retreat_max_m", "retreat_robot", "off_goal_max_m", "off_goal_robot",
                 "stops", "time_standing_s",
                 "turn_reversals_per_min", "turn_reversals_per_min_max", "turn_reversals_robot",
                 "steering_reversals_per_min_median", "steering_reversals_per_min_max",
                 "steering_reversals_robot", "turned_on_goal_max_deg", "turned_on_goal_robot",
                 "time_off_goal_s", "at_goal_at_end",
                 "spl", "path_length_mean_m", "timeouts", "failed_to_progress",
                 "time_stalled_s", "acceleration_mean_mps2", "acceleration_max_mps2",
                 "jerk_mean_mps3", "jerk_max_mps3",
                 "robot_collisions", "wall_collisions", "success_rate"}
"""The motion-quality and social-navigation fields of every bench row
(orca_ros/core/sim/motion_quality.py, RunResult.summary)."""
