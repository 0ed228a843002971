/*
 * The preferred velocity's per-period geometry in C: the way round robots standing in
 * the way (orca_ros/core/robot/guidance.py: detour_around_discs), the turn at doors
 * one robot wide (orca_ros/core/robot/preferred_velocity.py: door_share), the gaps
 * too narrow on guidance's lines of sight (guidance.py: WallQueries._pinched) and which
 * of those lines a robot can drive (WallQueries.passable). The Python
 * modules document the rules and call into this one; test/helpers/guidance_reference.py
 * keeps the former Python, which the tests compare this against value for value: the
 * same operations in the same order, with Python's min, max and hypot (pymath.h).
 *
 * Built with floating-point contraction off (setup.py), as Python rounds each operation.
 * Bad input raises TypeError or ValueError naming the argument; nothing here keeps a
 * reference to its input after the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>

#include "pyargs.h"
#include "pymath.h"
#include "segments.h"

#define NEAR_ZERO 1e-12               /* a disc at the robot's centre; no offset direction */
#define ROUND_FULL (1.9 * M_PI)       /* a cluster this wide surrounds the robot */
#define SHORT_SEGMENT 1e-18           /* a segment this short (squared) is its first point */

/* ------------------------------------------------------------------------------------ */
/* Reading Python input                                                                  */

/* (x, y) from a sequence of two numbers; ``what`` names it in the error. */
static int
read_pair(PyObject *obj, double *x, double *y, const char *what, Py_ssize_t index)
{
    PyObject *pair = PySequence_Fast(obj, "");
    if (pair == NULL || PySequence_Fast_GET_SIZE(pair) != 2) {
        Py_XDECREF(pair);
        PyErr_Clear();
        if (index >= 0) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must hold (x, y) pairs", what, index);
        } else {
            PyErr_Format(PyExc_TypeError, "%s must be an (x, y) pair", what);
        }
        return -1;
    }
    *x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(pair, 0));
    if (!PyErr_Occurred()) {
        *y = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(pair, 1));
    }
    Py_DECREF(pair);
    return PyErr_Occurred() ? -1 : 0;
}

/* Segments (a, b) of points: 4 numbers each into a new array (*out, free it), or -1. */
static Py_ssize_t
read_segments(PyObject *obj, double **out, const char *name)
{
    PyObject *fast = PySequence_Fast(obj, "");
    if (fast == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of (a, b) segments", name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    double *s = PyMem_Malloc(sizeof(double) * 4 * (size_t)(n ? n : 1));
    if (s == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *segment = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, i), "");
        int ok = segment != NULL && PySequence_Fast_GET_SIZE(segment) == 2;
        if (!ok) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be an (a, b) segment", name, i);
        }
        ok = ok && read_pair(PySequence_Fast_GET_ITEM(segment, 0), s + 4 * i, s + 4 * i + 1,
                             name, i) == 0
                && read_pair(PySequence_Fast_GET_ITEM(segment, 1), s + 4 * i + 2,
                             s + 4 * i + 3, name, i) == 0;
        Py_XDECREF(segment);
        if (!ok) {
            PyMem_Free(s);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    *out = s;
    return n;
}

/* ------------------------------------------------------------------------------------ */
/* Geometry, as orca_ros/core/geometry/vectors.py                                        */

/* closest_point_on_segment(p, a, b): the point of segment a-b nearest to p. */
static void
closest_point(double x, double y, const double *segment, double *qx, double *qy)
{
    double ax = segment[0], ay = segment[1];
    double abx = segment[2] - ax, aby = segment[3] - ay;
    double length_sq = abx * abx + aby * aby;
    double s = length_sq < SHORT_SEGMENT ? 0.0
        : py_min(1.0, py_max(0.0, ((x - ax) * abx + (y - ay) * aby) / length_sq));
    *qx = ax + s * abx;
    *qy = ay + s * aby;
}

/* ------------------------------------------------------------------------------------ */
/* detour_around_discs                                                                   */

/* Whether a wall leaves the robot at (px, py) no room to pass the disc (cx, cy, radius:
   where its centre may not go) on the side of its waypoint (wx, wy): the wall's nearest
   point is nearer the centre than radius + clearance, and on the waypoint's side of the
   line from the robot through the centre. (Judged by the side of the waypoint as seen
   from the centre instead, a speck beside a robot parked in an aisle shut both ways at
   once, both were then taken as open, and a unicycle pressed on into the shut one for
   good.) */
static int
shut_by_a_wall(double px, double py, double cx, double cy, double radius, double wx,
               double wy, const double *walls, Py_ssize_t n_walls, double clearance)
{
    double ax = cx - px, ay = cy - py;
    double side = ax * (wy - py) - ay * (wx - px);
    for (Py_ssize_t k = 0; k < n_walls; k++) {
        double qx, qy;
        closest_point(cx, cy, walls + 4 * k, &qx, &qy);
        if (py_hypot(qx - cx, qy - cy) < radius + clearance
                && (ax * (qy - py) - ay * (qx - px)) * side > 0.0) {
            return 1;
        }
    }
    return 0;
}

/* Whether walls come within ``reach`` of (cx, cy) beside it on both sides, across the
   direction ``bearing`` (rad) the robot heads in: their nearest points lie more across
   that direction than along it. (Ahead or behind, the two faces of one corner fall on
   either side of a line aimed at the corner: robots round a block's corner in
   rvo2_blocks backed out of a 20 m lane.) */
static int
walls_either_side(double cx, double cy, double bearing, double reach, const double *walls,
                  Py_ssize_t n_walls)
{
    double ux = cos(bearing), uy = sin(bearing);
    int left = 0, right = 0;
    for (Py_ssize_t k = 0; k < n_walls; k++) {
        double qx, qy;
        closest_point(cx, cy, walls + 4 * k, &qx, &qy);
        double dx = qx - cx, dy = qy - cy;
        if (py_hypot(dx, dy) < reach) {
            double across = ux * dy - uy * dx, along = ux * dx + uy * dy;
            if (fabs(across) > fabs(along)) {
                if (across > 0.0) {
                    left = 1;
                } else {
                    right = 1;
                }
            }
        }
    }
    return left && right;
}

typedef struct {
    double wx, wy, length;
    int shut;
} Way;

PyDoc_STRVAR(detour_around_discs_doc,
"detour_around_discs(px, py, tx, ty, discs, side, offset, walls, clearance, kept_for)\n"
"    -> None or (wx, wy, side, walled, blocker, kept)\n\n"
"guidance.detour_around_discs: discs are (centre, radius, ...) with centre an (x, y)\n"
"pair, walls (a, b) segments of (x, y) pairs; side is kept only while the disc\n"
"kept_for (an index, or -1: any) is in the cluster. Ties go to the lower disc index\n"
"and to the clockwise way.");

static PyObject *
py_detour_around_discs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, tx, ty, offset, clearance;
    if (check_nargs("detour_around_discs", nargs, 10) < 0) {
        return NULL;
    }
    long side = PyLong_AsLong(args[5]);
    if (side == -1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "side must be an integer");
        return NULL;
    }
    Py_ssize_t kept_for = PyLong_AsSsize_t(args[9]);
    if (kept_for == -1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "kept_for must be an integer");
        return NULL;
    }
    if (arg_double(args[0], "px", &px) < 0 || arg_double(args[1], "py", &py) < 0
            || arg_double(args[2], "tx", &tx) < 0 || arg_double(args[3], "ty", &ty) < 0
            || arg_double(args[6], "offset", &offset) < 0
            || arg_double(args[8], "clearance", &clearance) < 0) {
        return NULL;
    }
    PyObject *discs = PySequence_Fast(args[4], "discs must be a sequence of (centre, radius)");
    if (discs == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(discs);
    double *walls = NULL;
    double *disc = PyMem_Malloc(sizeof(double) * 3 * (size_t)(n ? n : 1));
    int *in_cluster = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int));
    Py_ssize_t *frontier = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    PyObject *result = NULL;
    if (disc == NULL || in_cluster == NULL || frontier == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PySequence_Fast(PySequence_Fast_GET_ITEM(discs, i), "");
        int ok = d != NULL && PySequence_Fast_GET_SIZE(d) >= 2;
        if (!ok) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "discs[%zd] must be (centre, radius, ...)", i);
        }
        ok = ok && read_pair(PySequence_Fast_GET_ITEM(d, 0), disc + 3 * i, disc + 3 * i + 1,
                             "discs", i) == 0
                && arg_double(PySequence_Fast_GET_ITEM(d, 1), "a disc's radius",
                              disc + 3 * i + 2) == 0;
        Py_XDECREF(d);
        if (!ok) {
            goto done;
        }
        if (disc[3 * i + 2] < 0.0) {
            PyErr_Format(PyExc_ValueError, "discs[%zd] has a negative radius (%g)", i,
                         disc[3 * i + 2]);
            goto done;
        }
    }
    Py_ssize_t n_walls = read_segments(args[7], &walls, "walls");
    if (n_walls < 0) {
        goto done;
    }
    /* The discs the straight line crosses that do not hold the target; the first met. */
    Py_ssize_t blocker = -1, stack = 0;
    double nearest = 0.0;
    double abx = tx - px, aby = ty - py, length_sq = abx * abx + aby * aby;
    for (Py_ssize_t i = 0; i < n; i++) {
        double cx = disc[3 * i], cy = disc[3 * i + 1], r = disc[3 * i + 2];
        double s = length_sq < SHORT_SEGMENT ? 0.0
            : py_min(1.0, py_max(0.0, ((cx - px) * abx + (cy - py) * aby) / length_sq));
        if (py_hypot(cx - tx, cy - ty) > r
                && py_hypot(cx - (px + s * abx), cy - (py + s * aby)) < r) {
            double key = py_hypot(px - cx, py - cy) - r;
            if (blocker < 0 || key < nearest) {
                blocker = i;
                nearest = key;
            }
            in_cluster[i] = 1;
            frontier[stack++] = i;
        }
    }
    if (blocker < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The cluster: discs closer together than their two radii, joined. */
    while (stack > 0) {
        Py_ssize_t i = frontier[--stack];
        for (Py_ssize_t j = 0; j < n; j++) {
            if (!in_cluster[j] && py_hypot(disc[3 * i] - disc[3 * j],
                                           disc[3 * i + 1] - disc[3 * j + 1])
                    < disc[3 * i + 2] + disc[3 * j + 2]) {
                in_cluster[j] = 1;
                frontier[stack++] = j;
            }
        }
    }
    /* Its angular extent seen from the robot, from the bearing of the target. */
    double bearing = atan2(ty - py, tx - px);
    double low = INFINITY, high = -INFINITY;
    Py_ssize_t low_disc = -1, high_disc = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!in_cluster[i]) {
            continue;
        }
        double cx = disc[3 * i], cy = disc[3 * i + 1], r = disc[3 * i + 2];
        double distance = py_hypot(cx - px, cy - py);
        if (distance < NEAR_ZERO) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        double half = distance <= r ? M_PI / 2 : asin(r / distance);
        double relative = atan2(cy - py, cx - px) - bearing;
        relative = atan2(sin(relative), cos(relative));
        if (relative - half < low) {
            low = relative - half;
            low_disc = i;
        }
        if (relative + half > high) {
            high = relative + half;
            high_disc = i;
        }
    }
    if (high - low >= ROUND_FULL) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The two ways round: to the tangent point of the bounding disc, pushed out. */
    Way ways[2];
    double angles[2] = {low, high};
    Py_ssize_t bounds[2] = {low_disc < 0 ? n - 1 : low_disc, high_disc < 0 ? n - 1 : high_disc};
    for (int k = 0; k < 2; k++) {
        double cx = disc[3 * bounds[k]], cy = disc[3 * bounds[k] + 1];
        double r = disc[3 * bounds[k] + 2];
        double distance = py_hypot(cx - px, cy - py);
        double reach = sqrt(py_max(distance * distance - r * r, 0.0));
        double heading = bearing + angles[k];
        double wx = px + reach * cos(heading), wy = py + reach * sin(heading);
        double ox = wx - cx, oy = wy - cy;
        double norm = py_hypot(ox, oy);
        if (norm > NEAR_ZERO) {
            wx = wx + offset * ox / norm;
            wy = wy + offset * oy / norm;
        }
        ways[k].wx = wx;
        ways[k].wy = wy;
        ways[k].length = py_hypot(wx - px, wy - py) + py_hypot(tx - wx, ty - wy);
        ways[k].shut = shut_by_a_wall(px, py, cx, cy, r, wx, wy, walls, n_walls, clearance);
    }
    /* Ways shut by a wall are closed, unless both are. */
    int open[2] = {1, 1};
    if (!(ways[0].shut && ways[1].shut)) {
        open[0] = !ways[0].shut;
        open[1] = !ways[1].shut;
    }
    int walled = walls_either_side(disc[3 * blocker], disc[3 * blocker + 1], bearing,
                                   disc[3 * blocker + 2] + clearance, walls, n_walls);
    /* The side already taken while still open and not much longer, and while the disc it
       was taken for is in the cluster; else the shorter. */
    int k = -1;
    int for_this_cluster = kept_for < 0 || (kept_for < n && in_cluster[kept_for]);
    if ((side == -1 || side == 1) && for_this_cluster) {
        int own = side == 1, other = !own;
        if (open[own] && (!open[other] || ways[own].length <= 1.5 * ways[other].length)) {
            k = own;
        }
    }
    int kept = k >= 0;
    if (k < 0) {
        k = !open[0] ? 1 : (!open[1] ? 0 : (ways[1].length < ways[0].length ? 1 : 0));
    }
    result = Py_BuildValue("(ddiOnO)", ways[k].wx, ways[k].wy, k ? 1 : -1,
                           walled ? Py_True : Py_False, blocker, kept ? Py_True : Py_False);
done:
    Py_DECREF(discs);
    PyMem_Free(walls);
    PyMem_Free(disc);
    PyMem_Free(in_cluster);
    PyMem_Free(frontier);
    return result;
}

/* ------------------------------------------------------------------------------------ */
/* door_share                                                                            */

PyDoc_STRVAR(door_share_doc,
"door_share(key, doors, px, py, hx, hy, traffic, radius, avoidance_radius,\n"
"           pref_speed, closing_share) -> float\n\n"
"preferred_velocity.door_share: doors (x, y) points, traffic (position, velocity, key)\n"
"triples; radius and avoidance_radius the robot's (ControllerConfig.avoidance_radius).");

static PyObject *
py_door_share(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, hx, hy, radius, avoidance, pref_speed, closing_share;
    if (check_nargs("door_share", nargs, 11) < 0) {
        return NULL;
    }
    PyObject *key = args[0];
    if (arg_double(args[2], "px", &px) < 0 || arg_double(args[3], "py", &py) < 0
            || arg_double(args[4], "hx", &hx) < 0 || arg_double(args[5], "hy", &hy) < 0
            || arg_double(args[7], "radius", &radius) < 0
            || arg_double(args[8], "avoidance_radius", &avoidance) < 0
            || arg_double(args[9], "pref_speed", &pref_speed) < 0
            || arg_double(args[10], "closing_share", &closing_share) < 0) {
        return NULL;
    }
    PyObject *doors = PySequence_Fast(args[1], "doors must be a sequence of (x, y) points");
    if (doors == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(doors);
    PyObject *traffic = NULL;
    double *door = NULL, *other = NULL;
    double share = 1.0;
    if (n == 0) {
        goto answer;
    }
    door = PyMem_Malloc(sizeof(double) * 2 * (size_t)n);
    if (door == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    double nearest = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_pair(PySequence_Fast_GET_ITEM(doors, i), door + 2 * i, door + 2 * i + 1,
                      "doors", i) < 0) {
            goto fail;
        }
        double d = py_hypot(px - door[2 * i], py - door[2 * i + 1]);
        nearest = i == 0 ? d : py_min(nearest, d);
    }
    if (nearest < radius) {
        goto answer;  /* in a door (of the nodes across a thick door, near any): go on */
    }
    traffic = PySequence_Fast(args[6], "traffic must be a sequence of (position, velocity, key)");
    if (traffic == NULL) {
        goto fail;
    }
    Py_ssize_t m = PySequence_Fast_GET_SIZE(traffic);
    other = PyMem_Malloc(sizeof(double) * 4 * (size_t)(m ? m : 1));
    if (other == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *item = PyTuple_Check(PySequence_Fast_GET_ITEM(traffic, j))
            ? PySequence_Fast_GET_ITEM(traffic, j) : NULL;
        if (item == NULL || PyTuple_GET_SIZE(item) != 3) {
            PyErr_Format(PyExc_TypeError, "traffic[%zd] must be a (position, velocity, key) "
                         "tuple", j);
            goto fail;
        }
        if (read_pair(PyTuple_GET_ITEM(item, 0), other + 4 * j, other + 4 * j + 1,
                      "traffic", j) < 0
                || read_pair(PyTuple_GET_ITEM(item, 1), other + 4 * j + 2, other + 4 * j + 3,
                             "traffic", j) < 0) {
            goto fail;
        }
    }
    double reach = 6.0 * avoidance, hold = 3.0 * avoidance;
    for (Py_ssize_t i = 0; i < n; i++) {
        double ox = door[2 * i] - px, oy = door[2 * i + 1] - py;
        double own = py_hypot(ox, oy);
        if (own > reach || ox * hx + oy * hy <= 0.0) {
            continue;  /* no door ahead */
        }
        for (Py_ssize_t j = 0; j < m; j++) {
            const double *o = other + 4 * j;
            double qx = door[2 * i] - o[0], qy = door[2 * i + 1] - o[1];
            double theirs = py_hypot(qx, qy);
            double closing = (qx * o[2] + qy * o[3]) / py_max(theirs, 1e-9);
            int first = theirs < radius;
            if (!first) {
                PyObject *key_o = PyTuple_GET_ITEM(PySequence_Fast_GET_ITEM(traffic, j), 2);
                int before = PyObject_RichCompareBool(key_o, key, Py_LT);
                if (before < 0) {
                    goto fail;
                }
                first = before && theirs <= reach && closing > closing_share * pref_speed;
            }
            if (first) {
                if (hold == 0.0) {
                    PyErr_SetString(PyExc_ZeroDivisionError,
                                    "float division by zero (avoidance_radius is 0)");
                    goto fail;
                }
                share = py_min(share, py_max(0.0, py_min(1.0, (own - hold) / hold)));
            }
        }
    }
answer:
    Py_DECREF(doors);
    Py_XDECREF(traffic);
    PyMem_Free(door);
    PyMem_Free(other);
    return PyFloat_FromDouble(share);
fail:
    Py_DECREF(doors);
    Py_XDECREF(traffic);
    PyMem_Free(door);
    PyMem_Free(other);
    return NULL;
}

/* ------------------------------------------------------------------------------------ */
/* A gap too narrow on a line of sight (guidance.py: WallQueries._pinched)               */

/* Whether the line p-q goes through a gap narrower than 2 passage between the walls
   a[i]-b[i] (pinched's rule, below). Only the walls within 2 passage of the line are
   looked at: a gap is narrower than 2 passage only between walls nearer than that on
   both sides (left + right < 2 passage, both >= 0), so a wall farther from the whole
   line changes no answer (the margin covers rounding). */
static int
line_pinched(double px, double py, double qx, double qy, double passage, double per_width,
             const double *a, const double *b, Py_ssize_t e)
{
    int pinched = 0;
    double dx = qx - px, dy = qy - py;
    double length = hypot(dx, dy);
    if (e > 0 && length > 2.0 * passage) {
        Py_ssize_t *near = PyMem_Malloc((size_t)e * sizeof(Py_ssize_t));
        Py_ssize_t count = 0;
        double reach = 2.0 * passage * (1.0 + 1e-9);
        for (Py_ssize_t i = 0; i < e; i++) {
            if (near == NULL || segment_to_segment(px, py, qx, qy, a[2 * i], a[2 * i + 1],
                                                   b[2 * i], b[2 * i + 1]) < reach) {
                if (near != NULL) {
                    near[count] = i;
                }
                count++;
            }
        }
        /* numpy.linspace: k * step + start, the last point exactly the stop */
        Py_ssize_t num = (Py_ssize_t)ceil((length - 2.0 * passage) * per_width / passage) + 1;
        num = num > 2 ? num : 2;
        double start = passage, stop = length - passage;
        double step = (stop - start) / (double)(num - 1);
        double ux = dx / length, uy = dy / length;
        for (Py_ssize_t k = 0; count > 0 && k < num && !pinched; k++) {
            double s = k == num - 1 ? stop : (double)k * step + start;
            double x = px + s * ux, y = py + s * uy;
            double left = INFINITY, right = INFINITY;
            for (Py_ssize_t w = 0; w < count; w++) {
                Py_ssize_t i = near == NULL ? w : near[w];  /* (no memory: every wall) */
                double ax = a[2 * i], ay = a[2 * i + 1];
                double ddx = b[2 * i] - ax, ddy = b[2 * i + 1] - ay;
                double length_sq = ddx * ddx + ddy * ddy;
                length_sq = length_sq > 1e-300 ? length_sq : 1e-300;
                double t = ((x - ax) * ddx + (y - ay) * ddy) / length_sq;
                t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
                double ox = (ax + t * ddx) - x, oy = (ay + t * ddy) - y;
                double distance = hypot(ox, oy);
                double side = ux * oy - uy * ox;  /* > 0: on the left */
                if (side > 0.0 && distance < left) {
                    left = distance;
                } else if (side < 0.0 && distance < right) {
                    right = distance;
                }
            }
            pinched = left + right < 2.0 * passage;
        }
        PyMem_Free(near);
    }
    return pinched;
}

PyDoc_STRVAR(pinched_doc,
"pinched(px, py, qx, qy, passage, samples_per_width, a, b, e) -> bool\n\n"
"Whether the line p-q goes through a gap narrower than 2 passage between the walls\n"
"a[i]-b[i] (float64 C-contiguous arrays of shape (e, 2)): at one of the points along it\n"
"(numpy.linspace(passage, length - passage, n), n = max(2, ceil((length - 2 passage)\n"
"samples_per_width / passage) + 1)), the nearest wall on its left and the nearest on its\n"
"right are less than that apart. False for a line no longer than 2 passage, or e = 0.");

static PyObject *
py_pinched(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, qx, qy, passage, per_width;
    Py_ssize_t e = 0;
    if (check_nargs("pinched", nargs, 9) < 0 || arg_double(args[0], "px", &px) < 0
            || arg_double(args[1], "py", &py) < 0 || arg_double(args[2], "qx", &qx) < 0
            || arg_double(args[3], "qy", &qy) < 0
            || arg_double(args[4], "passage", &passage) < 0
            || arg_double(args[5], "samples_per_width", &per_width) < 0
            || arg_index(args[8], "e", &e) < 0) {
        return NULL;
    }
    if (e < 0) {
        PyErr_SetString(PyExc_ValueError, "e must be >= 0");
        return NULL;
    }
    if (!(passage > 0.0)) {
        PyErr_Format(PyExc_ValueError, "passage must be > 0, got %R", args[4]);
        return NULL;
    }
    Py_buffer views[2];
    if (get_buffer(args[6], "a", e * 2, 0, &views[0]) < 0) {
        return NULL;
    }
    if (get_buffer(args[7], "b", e * 2, 0, &views[1]) < 0) {
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    int pinched = line_pinched(px, py, qx, qy, passage, per_width, views[0].buf,
                               views[1].buf, e);
    PyBuffer_Release(&views[0]);
    PyBuffer_Release(&views[1]);
    return PyBool_FromLong(pinched);
}

PyDoc_STRVAR(passable_doc,
"passable(p, q, n, clearance, passage, samples_per_width, a, b, e) -> bytearray\n\n"
"For each line p[k]-q[k] (float64 C-contiguous arrays of shape (n, 2)), 1 where a robot\n"
"can drive it among the walls a[i]-b[i] (shape (e, 2)), else 0: it keeps clearance from\n"
"every wall (segment_min_distances), and, with passage > clearance, a line nearer a wall\n"
"than passage goes through no gap narrower than 2 passage (pinched, over all e walls).\n"
"WallQueries.passable over walls without a spatial index, number for number.");

static PyObject *
py_passable(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n = 0, e = 0;
    double clearance, passage, per_width;
    if (check_nargs("passable", nargs, 9) < 0 || arg_index(args[2], "n", &n) < 0
            || arg_double(args[3], "clearance", &clearance) < 0
            || arg_double(args[4], "passage", &passage) < 0
            || arg_double(args[5], "samples_per_width", &per_width) < 0
            || arg_index(args[8], "e", &e) < 0) {
        return NULL;
    }
    if (n < 0 || e < 0) {
        PyErr_SetString(PyExc_ValueError, "n and e must be >= 0");
        return NULL;
    }
    PyObject *buffers[4] = {args[0], args[1], args[6], args[7]};
    const char *names[4] = {"p", "q", "a", "b"};
    Py_ssize_t sizes[4] = {n * 2, n * 2, e * 2, e * 2};
    Py_buffer views[4];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 4; got++) {
        if (get_buffer(buffers[got], names[got], sizes[got], 0, &views[got]) < 0) {
            goto done;
        }
    }
    if ((result = PyByteArray_FromStringAndSize(NULL, n)) == NULL) {
        goto done;
    }
    const double *p = views[0].buf, *q = views[1].buf, *a = views[2].buf, *b = views[3].buf;
    char *out = PyByteArray_AS_STRING(result);
    int narrow = passage > clearance && passage > 0.0;
    for (Py_ssize_t k = 0; k < n; k++) {
        double px = p[2 * k], py = p[2 * k + 1], qx = q[2 * k], qy = q[2 * k + 1];
        double least = segment_min_distance(px, py, qx, qy, a, b, e);
        int seen = !(least < clearance);
        if (seen && narrow && least < passage) {  /* grazing a wall: through a gap? */
            seen = !line_pinched(px, py, qx, qy, passage, per_width, a, b, e);
        }
        out[k] = (char)seen;
    }
done:
    for (int v = 0; v < got; v++) {
        PyBuffer_Release(&views[v]);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"detour_around_discs", (PyCFunction)(void (*)(void))py_detour_around_discs,
     METH_FASTCALL, detour_around_discs_doc},
    {"door_share", (PyCFunction)(void (*)(void))py_door_share, METH_FASTCALL,
     door_share_doc},
    {"pinched", (PyCFunction)(void (*)(void))py_pinched, METH_FASTCALL, pinched_doc},
    {"passable", (PyCFunction)(void (*)(void))py_passable, METH_FASTCALL, passable_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_guidance",
    "The preferred velocity's per-period geometry in C; see orca_ros.core.robot.guidance.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__guidance(void)
{
    return PyModule_Create(&module_def);
}
