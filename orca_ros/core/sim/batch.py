"""The world's batch: every robot's half-planes against its neighbours in one numpy call.

A method whose :class:`~orca_ros.core.methods.base.MethodSpec` has a
``half_planes_batch`` (``orca``, ``orca_strict``, ``rfunction``) builds its
half-planes from plain arrays: the robots' velocities, their neighbours' relative
positions and velocities, the combined radii and the horizons. The world gathers
those arrays here, from its own state and each robot's configuration, and hands every
robot its half-planes in ``RobotView.agent_half_planes``
(:meth:`~orca_ros.core.robot.controller.RobotController.compute`): the numbers each
robot would have built alone, at a fraction of the cost.
"""

from __future__ import annotations

import operator
from typing import Callable, List, NamedTuple, Optional, Tuple

import numpy as np

from ..geometry.linprog import HalfPlane
from ..methods import world_spec

Batch = Callable[..., List[list]]
"""``batch(world, active_idx, neighbor_lists)``: per active agent, in order, its
half-planes against its neighbours (in the order of its neighbour list)."""


def batch_pairs(world, active_idx: np.ndarray, neighbor_lists):
    """The world's agent-neighbour pairs as a method's ``half_planes_batch`` takes them:
    ``(velocity (N, 2), other_position_rel (N, K, 2), other_velocity (N, K, 2),
    combined_radius (N, K), inv_time_horizon (N,), inv_time_step)``, the rows padded to
    the longest neighbour list (the padding is dropped by the caller); None when no agent
    has a neighbour. The combined radii are those each agent plans with
    (:meth:`~orca_ros.core.robot.config.ControllerConfig.avoidance_radius`, less
    :meth:`~orca_ros.core.robot.config.ControllerConfig.pair_margin_shortfall`), as
    :meth:`~orca_ros.core.robot.controller.RobotController.neighbor_view` inflates them."""
    count = len(active_idx)
    width = max((len(n) for n in neighbor_lists), default=0)
    if width == 0:
        return None
    index = np.zeros((count, width), dtype=int)
    valid = np.zeros((count, width), dtype=bool)
    for row, neighbors in enumerate(neighbor_lists):
        index[row, :len(neighbors)] = neighbors
        valid[row, :len(neighbors)] = True
    index = np.where(valid, index, active_idx[:, None])  # padding: any agent, dropped below
    settings = _settings(world, active_idx)
    margin, tracking, own, speed_ratio, max_speed, inv_horizon = settings.arrays
    others = world.radius[index] * (1.0 + margin[:, None]) + tracking[:, None]
    combined = own[:, None] + others
    # ControllerConfig.pair_margin_shortfall, in a batch
    kept = np.array([world.controllers[i].preferred.margin.held for i in active_idx])[:, None]
    if np.any(speed_ratio > 0.0):
        full_at = speed_ratio * max_speed
        relative = np.linalg.norm(world.velocities[active_idx, None] - world.velocities[index],
                                  axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            kept = kept * np.where(full_at[:, None] > 0.0,
                                   np.minimum(1.0, relative / full_at[:, None]), 1.0)
    combined -= (1.0 - kept) * margin[:, None] * (world.radius[active_idx, None]
                                                  + world.radius[index])
    return (world.velocities[active_idx],
            world.positions[index] - world.positions[active_idx, None],
            world.velocities[index], combined, inv_horizon, 1.0 / world.dt)


class _Settings(NamedTuple):
    """The active robots' configurations, and what the batch takes of them: margin
    ratios, tracking errors, own avoidance radii, margin speed ratios, top speeds,
    inverse horizons (arrays, in ``active_idx``'s order), and each method's parameters."""

    configs: List[object]
    arrays: Tuple[np.ndarray, ...]
    params: List[object]


def _settings(world, active_idx: np.ndarray) -> _Settings:
    """The batch's per-robot settings, made anew only when a robot's configuration (a
    frozen :class:`~orca_ros.core.robot.config.ControllerConfig`) or the active robots
    changed: kept on the world between steps."""
    configs = [world.controllers[i].config for i in active_idx.tolist()]
    kept = getattr(world, "_batch_settings", None)
    if kept is not None and len(kept.configs) == len(configs) and \
            all(map(operator.is_, kept.configs, configs)):
        return kept
    arrays = (np.array([c.margin_ratio for c in configs]),
              np.array([c.tracking_error for c in configs]),
              np.array([c.avoidance_radius(c.radius) for c in configs]),
              np.array([c.margin_speed_ratio for c in configs]),
              np.array([c.max_speed for c in configs]),
              np.array([1.0 / c.time_horizon for c in configs]))
    world._batch_settings = _Settings(configs, arrays,
                                      [world.controllers[i].method.params for i in active_idx])
    return world._batch_settings


def half_planes(world, active_idx: np.ndarray, neighbor_lists, function) -> List[list]:
    """Every active agent's half-planes against its neighbours from a method's array
    ``function`` (:attr:`~orca_ros.core.methods.base.MethodSpec.half_planes_batch`), each
    agent with its own method's parameters. A row whose half-planes are all kept is the
    list of its ``[point_x, point_y, direction_x, direction_y]`` rows; otherwise the kept
    ones as :class:`HalfPlane`. (A function may give its lines as a list of N rows of K
    half-planes instead of an array: ``orca``'s are :class:`HalfPlane` objects from C.)"""
    pairs = batch_pairs(world, active_idx, neighbor_lists)
    if pairs is None:
        return [[] for _ in range(len(active_idx))]
    params = _settings(world, active_idx).params
    lines, kept = function(params, *pairs)
    if not isinstance(lines, list):  # an (N, K, 4) array; a list holds the rows already
        lines = np.asarray(lines).tolist()
    if kept is None:
        return [row_lines[:len(neighbors)]
                for row_lines, neighbors in zip(lines, neighbor_lists)]
    out: List[list] = []
    for row_lines, row_kept, neighbors in zip(lines, np.asarray(kept).tolist(), neighbor_lists):
        width = len(neighbors)
        out.append([HalfPlane(*line) for line, keep in zip(row_lines[:width], row_kept[:width])
                    if keep])
    return out


def orca_half_planes_batch(world, active_idx: np.ndarray, neighbor_lists) -> List[list]:
    """Every active agent's ORCA half-planes against its neighbours, in one batch."""
    from ..methods.orca import orca_half_planes_batch as function

    return half_planes(world, active_idx, neighbor_lists, function)


def rfunction_half_planes_batch(world, active_idx: np.ndarray, neighbor_lists) -> List[list]:
    """Every active agent's R-function half-planes against its neighbours, in one batch,
    for each agent's own parameters (the paper variant's rows keep only its half-planes)."""
    from ..methods.rfunction import rfunction_half_planes_batch as function

    return half_planes(world, active_idx, neighbor_lists, function)


def batch_for(method: str) -> Optional[Batch]:
    """The world's batch for agents running ``method``, or None when its half-planes are
    not built in a batch (a world backend's name: None)."""
    function = getattr(world_spec(method), "half_planes_batch", None)
    if function is None:
        return None

    def batch(world, active_idx: np.ndarray, neighbor_lists) -> List[list]:
        return half_planes(world, active_idx, neighbor_lists, function)
    return batch
