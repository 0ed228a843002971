"""One orca_node for one robot (Gazebo, or a real robot), in its namespace with a params file.

    ros2 launch orca_ros robot.launch.py namespace:=robot1 params_file:=/path/robot1.yaml

The robot must publish `odom` and accept `cmd_vel` in that namespace. The parameters
file says which frame the odometry is in and how the pose in the shared frame is found
(config/orca_node.yaml: odometry already in `world`; `pose_source`, `odom_frame` and
`localization_topic` for odometry in the robot's own frame placed by AMCL). Other robots
are known by what their orca_nodes announce on /orca/states, and, with
`discover_odometry` (the default file's), by any `*/odom` topic in the shared frame.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    default_params = os.path.join(get_package_share_directory("orca_ros"), "config",
                                  "orca_node.yaml")
    return LaunchDescription([
        DeclareLaunchArgument("namespace", default_value="robot1", description="robot namespace"),
        DeclareLaunchArgument("params_file", default_value=default_params,
                              description="orca_node parameters (/**: ros__parameters:)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="true under Gazebo or fleet_sim"),
        Node(package="orca_ros", executable="orca_node", name="orca_node",
             namespace=LaunchConfiguration("namespace"),
             parameters=[LaunchConfiguration("params_file"),
                         {"use_sim_time": LaunchConfiguration("use_sim_time")}],
             output="screen"),
    ])
