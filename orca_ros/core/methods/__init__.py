"""Avoidance methods behind one interface (:mod:`.base`), registered by name.

Built in: ``orca`` and ``orca_strict`` (:mod:`.orca`), ``direct`` (:mod:`.direct`), the
toio SDK Navigator's ``hlavoid``, ``boids`` and ``boids_avoid`` (:mod:`.navigator`),
the sampling RVO ``rvo_sampling`` (:mod:`.rvo_sampling`), ``hrvo`` (:mod:`.hrvo`) and
the R-function velocity obstacle ``rfunction`` (:mod:`.rfunction`). The reference
RVO2 library, ``rvo2``, is a world backend (:mod:`orca_ros.core.sim.backends`), in a
registry of its own (:mod:`.registry`) beside theirs.

The registry fills itself on first use (:func:`method_names`, :func:`method_spec`):
the built-in methods in that order, then those other packages declare in the
entry-point group ``orca_ros.methods`` (:mod:`.plugins`); a built-in method's module is
imported when its spec is first asked for. A new built-in method is one module here
with a ``register`` function, listed in :data:`.plugins.BUILT_IN` and in setup.py's
entry points, and its names in :data:`.plugins.BUILT_IN_LISTING`.
"""

from .base import (TRACKING, AvoidanceMethod, Capabilities, LinkView, MethodOutput,
                   MethodSpec, NeighborView, NoParameters, RobotView, TetherView)
from .registry import (built_in_method_names, is_method, method_names, method_spec,
                       method_summary, register_method, unregister_method, world_spec)

__all__ = ["TRACKING", "AvoidanceMethod", "Capabilities", "LinkView", "MethodOutput",
           "MethodSpec", "NeighborView", "NoParameters", "RobotView", "TetherView",
           "built_in_method_names", "is_method", "method_names", "method_spec",
           "method_summary", "register_method", "unregister_method", "world_spec"]
