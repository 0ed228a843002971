"""Avoidance methods behind one interface (:mod:`.base`), registered by name.

Built in: ``orca`` and ``orca_strict`` (:mod:`.orca`), ``rvo2`` (:mod:`.rvo2_reference`,
world only), ``direct`` (:mod:`.direct`), and the toio SDK Navigator's ``hlavoid``,
``boids`` and ``boids_avoid`` (:mod:`.navigator`), the sampling RVO ``rvo_sampling``
(:mod:`.rvo_sampling`), ``hrvo`` (:mod:`.hrvo`) and the R-function velocity obstacle
``rfunction`` (:mod:`.rfunction`). A new method is one module here plus
its import below.
"""

# Registration, in the order the choices are listed.
from . import orca  # noqa: F401  (orca, orca_strict)
from . import rvo2_reference  # noqa: F401  (rvo2)
from . import direct  # noqa: F401  (direct)
from . import navigator  # noqa: F401  (hlavoid, boids, boids_avoid)
from . import rvo_sampling  # noqa: F401  (rvo_sampling)
from . import hrvo  # noqa: F401  (hrvo)
from . import rfunction  # noqa: F401  (rfunction)
from .base import (TRACKING, AvoidanceMethod, LinkView, MethodOutput, MethodSpec,
                   NeighborView, NoParameters, RobotView, TetherView,
                   method_names, method_spec, register_method, unregister_method)

__all__ = ["TRACKING", "AvoidanceMethod", "LinkView", "MethodOutput", "MethodSpec",
           "NeighborView", "NoParameters", "RobotView", "TetherView",
           "method_names", "method_spec", "register_method", "unregister_method"]
