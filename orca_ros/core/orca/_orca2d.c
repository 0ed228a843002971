/*
 * ORCA's hot path in C: RVO2's Agent::computeNewVelocity (van den Berg, Guy, Lin,
 * Manocha, "Reciprocal n-Body Collision Avoidance", 2011) for one agent.
 *
 * This is the only implementation of ORCA's 2D half-planes and linear programs in
 * orca_ros, and of the one-step safety filter's 2D half-planes (the end of this file;
 * orca_ros/core/robot/safety_filter.py calls them, test/helpers/safety_reference.py keeps
 * their former Python). The Python modules orca_ros/core/geometry/linprog.py and
 * orca_ros/core/orca/orca2d.py document the algorithm and call into this module;
 * test/helpers/orca_reference.py keeps the former pure-Python code, which the tests
 * compare this one against.
 *
 * After them, in this order: a unicycle's tracking (its kinematic half-planes and its
 * command, orca_ros/core/robot/tracking.py), ORCA's half-planes of many robots at once
 * (the world's batch), distances to wall segments (orca_ros/core/geometry/segment_index.py), and the
 * robot cycle's neighbour stage: perception over the readings' rows (perceive_rows),
 * the rows made Neighbors and the method's views (make_neighbors, neighbor_views), and
 * the reciprocity monitor's two steps (orca_ros/core/robot/perception.py; their former
 * Python in test/helpers/perception_reference.py). The preferred velocity's geometry is
 * in orca_ros/core/robot/_guidance.c, the state batch reader in orca_ros/nodes.
 *
 * Every step follows RVO2 (Agent.cpp: linearProgram1/2/3, the obstacle and agent
 * loops of computeNewVelocity), in double precision, in the same order of operations
 * as the Python reference, so that results agree with it to the last bit. The one
 * known source of a difference is the length of a vector: Python's math.hypot and the
 * C library's hypot may round the last bit differently (in about one case in a
 * thousand, by one unit in the last place).
 *
 * Build with floating-point contraction off (setup.py passes -ffp-contract=off), so
 * that a * b + c is never fused into one rounding: Python rounds each operation.
 *
 * Input is any sequence of 4-number sequences for half-planes (HalfPlane is a tuple),
 * obstacle edges are ObstacleVertex objects (orca_ros/core/geometry/obstacles.py),
 * neighbours are (x, y, vx, vy, radius[, share]) sequences or NeighborState objects.
 * Bad input raises TypeError or ValueError naming the argument; nothing here keeps a
 * reference to its input after the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pyargs.h"
#include "pymath.h"
#include "segments.h"

#define RVO_EPSILON 1e-5              /* parallel-line threshold (RVO2's RVO_EPSILON) */
#define TINY_LENGTH 0x1p-400          /* below this, squares of components may be subnormal */
#define RESCALE 0x1p600               /* exact: a power of two */
#define STACK_LINES 64                /* half-planes kept on the stack before the heap */

typedef struct {
    double px, py, dx, dy;            /* a point on the line, its unit direction */
} Line;

typedef struct {
    double x, y, vx, vy, radius, share;
} Neighbor;

/* One obstacle edge, from vertex a (the ObstacleVertex) to vertex b (its next). */
typedef struct {
    double ax, ay, bx, by;
    double a_dx, a_dy;                /* a.unit_dir */
    double b_dx, b_dy;                /* b.unit_dir */
    double a_prev_dx, a_prev_dy;      /* a.prev.unit_dir */
    double b_prev_dx, b_prev_dy;      /* b.prev.unit_dir (a.unit_dir in a chain) */
    int a_convex, b_convex;
} Edge;

static PyTypeObject *half_plane_type = NULL;  /* set once by set_half_plane_type */
static PyObject *str_point, *str_next, *str_prev, *str_unit_dir, *str_is_convex,
    *str_orca_edge, *str_position, *str_velocity, *str_radius;

/* ------------------------------------------------------------------------------------ */
/* Small vector helpers, as orca_ros/core/geometry/vectors.py                            */

/* (x, y) / |(x, y)|, exact for the tiniest vectors; 0 for the zero vector. */
static int
unit2(double x, double y, double *ux, double *uy)
{
    double length = hypot(x, y);
    if (length == 0.0) {
        return 0;
    }
    if (length < TINY_LENGTH) {
        x *= RESCALE;
        y *= RESCALE;
        length = hypot(x, y);
    }
    *ux = x / length;
    *uy = y / length;
    return 1;
}

/* unit2, or (1, 0) for the zero vector (orca2d's _normalize). */
static void
normalize(double x, double y, double *ux, double *uy)
{
    if (!unit2(x, y, ux, uy)) {
        *ux = 1.0;
        *uy = 0.0;
    }
}

static int
zero_division(const char *what)
{
    PyErr_Format(PyExc_ZeroDivisionError, "float division by zero (%s)", what);
    return -1;
}

/* ------------------------------------------------------------------------------------ */
/* Reading Python input                                                                  */

/* The n numbers of a sequence (a tuple is read without a copy; anything else is copied
   into one first, so that no __float__ can change it under the loop). ``name`` and
   ``index`` (when >= 0) name it in errors: "lines[3] ...". ``expected`` describes the
   items. */
static int
read_numbers(PyObject *obj, double *out, Py_ssize_t n, Py_ssize_t min_n, Py_ssize_t *got,
             const char *name, Py_ssize_t index, const char *expected)
{
    PyObject *fast;
    if (PyTuple_Check(obj)) {
        fast = obj;
        Py_INCREF(fast);
    }
    else {
        fast = PyUnicode_Check(obj) || PyBytes_Check(obj) ? NULL : PySequence_Tuple(obj);
        if (fast == NULL) {
            if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError)) {
                return -1;  /* raised by the sequence itself: let it through */
            }
            PyErr_Clear();
            if (index >= 0) {
                PyErr_Format(PyExc_TypeError, "%s[%zd] must be a sequence of %s, not %.100s",
                             name, index, expected, Py_TYPE(obj)->tp_name);
            }
            else {
                PyErr_Format(PyExc_TypeError, "%s must be a sequence of %s, not %.100s", name,
                             expected, Py_TYPE(obj)->tp_name);
            }
            return -1;
        }
    }
    Py_ssize_t size = PySequence_Fast_GET_SIZE(fast);
    if (size > n || size < min_n) {
        if (index >= 0) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] must have %s, got %zd item%s", name, index,
                         expected, size, size == 1 ? "" : "s");
        }
        else {
            PyErr_Format(PyExc_ValueError, "%s must have %s, got %zd item%s", name, expected,
                         size, size == 1 ? "" : "s");
        }
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < size; k++) {
        if (as_double(items[k], &out[k]) < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                if (index >= 0) {
                    PyErr_Format(PyExc_TypeError, "%s[%zd][%zd] must be a number, not %.100s",
                                 name, index, k, Py_TYPE(items[k])->tp_name);
                }
                else {
                    PyErr_Format(PyExc_TypeError, "%s[%zd] must be a number, not %.100s", name,
                                 k, Py_TYPE(items[k])->tp_name);
                }
            }
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    if (got != NULL) {
        *got = size;
    }
    return 0;
}

static int
read_vec2(PyObject *obj, const char *name, Py_ssize_t index, double *x, double *y)
{
    double xy[2];
    if (PyTuple_CheckExact(obj) && PyTuple_GET_SIZE(obj) == 2
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 0))
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 1))) {
        *x = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 0));
        *y = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 1));
        return 0;
    }
    if (read_numbers(obj, xy, 2, 2, NULL, name, index, "2 numbers (x, y)") < 0) {
        return -1;
    }
    *x = xy[0];
    *y = xy[1];
    return 0;
}

static int
read_line(PyObject *obj, const char *name, Py_ssize_t index, Line *line)
{
    if (PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) == 4
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 0))
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 1))
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 2))
            && PyFloat_CheckExact(PyTuple_GET_ITEM(obj, 3))) {
        line->px = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 0));
        line->py = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 1));
        line->dx = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 2));
        line->dy = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(obj, 3));
        return 0;
    }
    double v[4];
    if (read_numbers(obj, v, 4, 4, NULL, name, index,
                     "4 numbers (point_x, point_y, direction_x, direction_y)") < 0) {
        return -1;
    }
    line->px = v[0];
    line->py = v[1];
    line->dx = v[2];
    line->dy = v[3];
    return 0;
}

/* A growable array of half-planes, on the stack while small. ``src`` remembers the
   input object a line was read from when it already is a HalfPlane (borrowed: the
   caller keeps the input alive), so that the result can hand it back unchanged. */
typedef struct {
    Line *lines;
    PyObject **src;
    Py_ssize_t size, capacity;
    Line stack_lines[STACK_LINES];
    PyObject *stack_src[STACK_LINES];
} LineBuf;

static void
linebuf_init(LineBuf *buf)
{
    buf->lines = buf->stack_lines;
    buf->src = buf->stack_src;
    buf->size = 0;
    buf->capacity = STACK_LINES;
}

static void
linebuf_free(LineBuf *buf)
{
    if (buf->lines != buf->stack_lines) {
        PyMem_Free(buf->lines);
        PyMem_Free(buf->src);
    }
}

static int
linebuf_reserve(LineBuf *buf, Py_ssize_t capacity)
{
    if (capacity <= buf->capacity) {
        return 0;
    }
    Line *lines = PyMem_Malloc((size_t)capacity * sizeof(Line));
    PyObject **src = PyMem_Malloc((size_t)capacity * sizeof(PyObject *));
    if (lines == NULL || src == NULL) {
        PyMem_Free(lines);
        PyMem_Free(src);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(lines, buf->lines, (size_t)buf->size * sizeof(Line));
    memcpy(src, buf->src, (size_t)buf->size * sizeof(PyObject *));
    linebuf_free(buf);
    buf->lines = lines;
    buf->src = src;
    buf->capacity = capacity;
    return 0;
}

/* Appends the lines of a fast sequence (PySequence_Fast's result). */
static int
linebuf_extend(LineBuf *buf, PyObject *fast, const char *name)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (linebuf_reserve(buf, buf->size + n) < 0) {
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_line(items[i], name, i, &buf->lines[buf->size]) < 0) {
            return -1;
        }
        buf->src[buf->size] = (half_plane_type != NULL
                               && Py_IS_TYPE(items[i], half_plane_type)) ? items[i] : NULL;
        buf->size++;
    }
    return 0;
}

/* ``obj`` as a tuple (a list or other iterable is copied into one): the tuple holds a
   reference to every item, so that Python code run while reading them (an attribute, a
   __float__) cannot free one by changing the sequence. */
static PyObject *
as_fast_sequence(PyObject *obj, const char *name)
{
    if (PyTuple_Check(obj)) {
        Py_INCREF(obj);
        return obj;
    }
    PyObject *fast = PyUnicode_Check(obj) || PyBytes_Check(obj) ? NULL : PySequence_Tuple(obj);
    if (fast == NULL) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError)) {
            return NULL;  /* raised by the sequence itself: let it through */
        }
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a sequence, not %.100s", name,
                     Py_TYPE(obj)->tp_name);
    }
    return fast;
}

/* ------------------------------------------------------------------------------------ */
/* Python output                                                                         */

static PyObject *
pair(double x, double y)
{
    PyObject *tuple = PyTuple_New(2);
    if (tuple == NULL) {
        return NULL;
    }
    PyObject *a = PyFloat_FromDouble(x);
    PyObject *b = PyFloat_FromDouble(y);
    if (a == NULL || b == NULL) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_DECREF(tuple);
        return NULL;
    }
    PyTuple_SET_ITEM(tuple, 0, a);
    PyTuple_SET_ITEM(tuple, 1, b);
    return tuple;
}

/* A HalfPlane (the NamedTuple of linprog.py), made as tuple.__new__ makes an instance
   of a tuple subclass (allocated by the subclass, the items set in), without the
   Python-level __new__; a plain tuple until set_half_plane_type has run. */
static PyObject *
new_half_plane(const Line *line)
{
    PyObject *result = half_plane_type == NULL ? PyTuple_New(4)
        : half_plane_type->tp_alloc(half_plane_type, 4);
    if (result == NULL) {
        return NULL;
    }
    double values[4] = {line->px, line->py, line->dx, line->dy};
    for (int k = 0; k < 4; k++) {
        PyObject *number = PyFloat_FromDouble(values[k]);
        if (number == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, k, number);
    }
    return result;
}

static PyObject *
lines_tuple(const LineBuf *buf)
{
    PyObject *tuple = PyTuple_New(buf->size);
    if (tuple == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < buf->size; i++) {
        PyObject *item = buf->src[i];
        if (item != NULL) {
            Py_INCREF(item);
        }
        else if ((item = new_half_plane(&buf->lines[i])) == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

/* ------------------------------------------------------------------------------------ */
/* The linear programs (RVO2's linearProgram1/2/3)                                       */

/* Optimise on the boundary of half-plane ``line_no`` (linearProgram1): clip it to the
   speed disc and to the half-planes before it, take the point of the interval nearest
   to ``opt`` (or furthest along it with ``direction_opt``). 0 when it is empty. */
static int
lp_on_line(const Line *lines, Py_ssize_t line_no, double radius, double opt_x, double opt_y,
           int direction_opt, double *rx, double *ry)
{
    const double px = lines[line_no].px, py = lines[line_no].py;
    const double dx = lines[line_no].dx, dy = lines[line_no].dy;
    const double dot = px * dx + py * dy;
    const double discriminant = dot * dot + radius * radius - (px * px + py * py);
    if (discriminant < 0.0) {
        return 0;  /* the speed disc lies wholly outside this half-plane */
    }
    const double sqrt_disc = sqrt(discriminant);
    double t_left = -dot - sqrt_disc;
    double t_right = -dot + sqrt_disc;

    for (Py_ssize_t i = 0; i < line_no; i++) {
        const double qx = lines[i].px, qy = lines[i].py;
        const double ex = lines[i].dx, ey = lines[i].dy;
        const double denominator = dx * ey - dy * ex;
        const double numerator = ex * (py - qy) - ey * (px - qx);
        if (-RVO_EPSILON <= denominator && denominator <= RVO_EPSILON) {
            if (numerator < 0.0) {
                return 0;  /* (almost) parallel and on the wrong side */
            }
            continue;
        }
        const double t = numerator / denominator;
        if (denominator >= 0.0) {
            if (t < t_right) {
                t_right = t;
            }
        }
        else if (t > t_left) {
            t_left = t;
        }
        if (t_left > t_right) {
            return 0;
        }
    }

    double t;
    if (direction_opt) {
        t = (opt_x * dx + opt_y * dy > 0.0) ? t_right : t_left;
    }
    else {
        t = dx * (opt_x - px) + dy * (opt_y - py);
        if (t < t_left) {
            t = t_left;
        }
        else if (t > t_right) {
            t = t_right;
        }
    }
    *rx = px + t * dx;
    *ry = py + t * dy;
    return 1;
}

/* Seidel's incremental 2D program (linearProgram2). Returns the index of the first
   half-plane that cannot be met (n when feasible); the result is the optimum of the
   half-planes before it. */
static Py_ssize_t
lp_2d(const Line *lines, Py_ssize_t n, double radius, double opt_x, double opt_y,
      int direction_opt, double *rx, double *ry)
{
    double result_x, result_y;
    if (direction_opt) {
        result_x = opt_x * radius;
        result_y = opt_y * radius;
    }
    else if (opt_x * opt_x + opt_y * opt_y > radius * radius) {
        const double norm = sqrt(opt_x * opt_x + opt_y * opt_y);
        result_x = opt_x / norm * radius;
        result_y = opt_y / norm * radius;
    }
    else {
        result_x = opt_x;
        result_y = opt_y;
    }

    for (Py_ssize_t i = 0; i < n; i++) {
        const Line *l = &lines[i];
        if (l->dx * (l->py - result_y) - l->dy * (l->px - result_x) > 0.0) {
            double cx, cy;
            if (!lp_on_line(lines, i, radius, opt_x, opt_y, direction_opt, &cx, &cy)) {
                *rx = result_x;
                *ry = result_y;
                return i;
            }
            result_x = cx;
            result_y = cy;
        }
    }
    *rx = result_x;
    *ry = result_y;
    return n;
}

/* The least-violation fallback (linearProgram3, eq. 7 of the paper): the first
   ``num_obstacle_lines`` stay hard; for each half-plane from ``begin_line`` violated by
   more than the current distance, a 2D program over its bisectors with the earlier
   soft half-planes, optimising perpendicular to it. ``scratch`` holds n lines.
   -1 with an exception set on a zero-length bisector (zero direction vectors). */
static int
lp_3d(const Line *lines, Py_ssize_t n, Py_ssize_t num_obstacle_lines, Py_ssize_t begin_line,
      double radius, double *rx, double *ry, Line *scratch)
{
    double result_x = *rx, result_y = *ry;
    double distance = 0.0;
    const Py_ssize_t kept = num_obstacle_lines < n ? num_obstacle_lines : n;
    for (Py_ssize_t i = begin_line; i < n; i++) {
        const double px = lines[i].px, py = lines[i].py;
        const double dx = lines[i].dx, dy = lines[i].dy;
        if (dx * (py - result_y) - dy * (px - result_x) <= distance) {
            continue;
        }
        Py_ssize_t m = kept;
        memcpy(scratch, lines, (size_t)kept * sizeof(Line));
        for (Py_ssize_t j = num_obstacle_lines; j < i; j++) {
            const double qx = lines[j].px, qy = lines[j].py;
            const double ex = lines[j].dx, ey = lines[j].dy;
            const double determinant = dx * ey - dy * ex;
            double point_x, point_y;
            if (-RVO_EPSILON <= determinant && determinant <= RVO_EPSILON) {
                if (dx * ex + dy * ey > 0.0) {
                    continue;  /* same direction: line j cannot matter */
                }
                point_x = 0.5 * (px + qx);
                point_y = 0.5 * (py + qy);
            }
            else {
                const double s = (ex * (py - qy) - ey * (px - qx)) / determinant;
                point_x = px + s * dx;
                point_y = py + s * dy;
            }
            const double bx = ex - dx, by = ey - dy;
            const double norm = sqrt(bx * bx + by * by);
            if (norm == 0.0) {
                return zero_division("a bisector of two half-planes has zero length");
            }
            scratch[m].px = point_x;
            scratch[m].py = point_y;
            scratch[m].dx = bx / norm;
            scratch[m].dy = by / norm;
            m++;
        }
        double cx, cy;
        /* By construction the previous result is feasible here; a failure can only
           come from rounding, and then the previous result is kept. */
        if (lp_2d(scratch, m, radius, -dy, dx, 1, &cx, &cy) == m) {
            result_x = cx;
            result_y = cy;
        }
        distance = dx * (py - result_y) - dy * (px - result_x);
    }
    *rx = result_x;
    *ry = result_y;
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Half-planes of agents and obstacle edges                                              */

/* ORCA_A|B against one neighbour (eq. 3-4): through v_A + share * u, normal along u. */
static void
agent_line(double vel_x, double vel_y, double rpx, double rpy, double ovx, double ovy,
           double combined_radius, double inv_time_horizon, double inv_time_step,
           double responsibility, Line *line)
{
    const double rvx = vel_x - ovx;
    const double rvy = vel_y - ovy;
    const double dist_sq = rpx * rpx + rpy * rpy;
    const double combined_radius_sq = combined_radius * combined_radius;
    double dx, dy, ux, uy;

    if (dist_sq > combined_radius_sq) {
        /* From the cut-off centre to the relative velocity. */
        const double wx = rvx - inv_time_horizon * rpx;
        const double wy = rvy - inv_time_horizon * rpy;
        const double w_length_sq = wx * wx + wy * wy;
        const double dot1 = wx * rpx + wy * rpy;
        if (dot1 < 0.0 && dot1 * dot1 > combined_radius_sq * w_length_sq) {
            /* Project on the cut-off circle (w is not zero here: dot1 < 0). */
            const double w_length = hypot(wx, wy);
            double ux_unit, uy_unit;
            normalize(wx, wy, &ux_unit, &uy_unit);
            dx = uy_unit;
            dy = -ux_unit;
            const double scale = combined_radius * inv_time_horizon - w_length;
            ux = scale * ux_unit;
            uy = scale * uy_unit;
        }
        else {
            /* Project on the left or right leg. */
            const double leg = sqrt(dist_sq - combined_radius_sq);
            if (rpx * wy - rpy * wx > 0.0) {
                dx = (rpx * leg - rpy * combined_radius) / dist_sq;
                dy = (rpx * combined_radius + rpy * leg) / dist_sq;
            }
            else {
                dx = -(rpx * leg + rpy * combined_radius) / dist_sq;
                dy = -(-rpx * combined_radius + rpy * leg) / dist_sq;
            }
            const double dot2 = rvx * dx + rvy * dy;
            ux = dot2 * dx - rvx;
            uy = dot2 * dy - rvy;
        }
    }
    else {
        /* Collision: project on the cut-off circle of one time step. Coincident
           centres moving alike (w = 0) take the fixed direction (1, 0), where RVO2
           divides by zero. */
        const double wx = rvx - inv_time_step * rpx;
        const double wy = rvy - inv_time_step * rpy;
        const double w_length = hypot(wx, wy);
        double ux_unit, uy_unit;
        normalize(wx, wy, &ux_unit, &uy_unit);
        dx = uy_unit;
        dy = -ux_unit;
        const double scale = combined_radius * inv_time_step - w_length;
        ux = scale * ux_unit;
        uy = scale * uy_unit;
    }
    line->px = vel_x + responsibility * ux;
    line->py = vel_y + responsibility * uy;
    line->dx = dx;
    line->dy = dy;
}

static int
get_vec2_attr(PyObject *obj, PyObject *name, double *x, double *y)
{
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL) {
        return -1;
    }
    int status = read_vec2(value, PyUnicode_AsUTF8(name), -1, x, y);
    Py_DECREF(value);
    return status;
}

/* The edge's numbers from ObstacleVertex.orca_edge, the tuple that
   orca_ros/core/geometry/obstacles.py keeps for this module (edge_numbers there gives
   the layout), or else from the vertex's attributes. ``points_only`` reads only the
   two end points. */
static int
read_edge(PyObject *vertex, Edge *edge, int points_only)
{
    PyObject *cached = PyObject_GetAttr(vertex, str_orca_edge);
    if (cached == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
    }
    else if (PyTuple_CheckExact(cached) && PyTuple_GET_SIZE(cached) == 14) {
        double v[14];
        for (int k = 0; k < 14; k++) {
            PyObject *item = PyTuple_GET_ITEM(cached, k);
            if (as_double(item, &v[k]) < 0) {
                Py_DECREF(cached);
                return -1;
            }
        }
        Py_DECREF(cached);
        edge->ax = v[0];
        edge->ay = v[1];
        edge->bx = v[2];
        edge->by = v[3];
        edge->a_dx = v[4];
        edge->a_dy = v[5];
        edge->b_dx = v[6];
        edge->b_dy = v[7];
        edge->a_prev_dx = v[8];
        edge->a_prev_dy = v[9];
        edge->b_prev_dx = v[10];
        edge->b_prev_dy = v[11];
        edge->a_convex = v[12] != 0.0;
        edge->b_convex = v[13] != 0.0;
        return 0;
    }
    else {
        Py_DECREF(cached);
    }

    PyObject *next = NULL, *prev = NULL, *next_prev = NULL;
    int status = -1;
    next = PyObject_GetAttr(vertex, str_next);
    if (next == NULL) {
        goto done;
    }
    if (get_vec2_attr(vertex, str_point, &edge->ax, &edge->ay) < 0
            || get_vec2_attr(next, str_point, &edge->bx, &edge->by) < 0) {
        goto done;
    }
    if (points_only) {
        status = 0;
        goto done;
    }
    if (get_vec2_attr(vertex, str_unit_dir, &edge->a_dx, &edge->a_dy) < 0
            || get_vec2_attr(next, str_unit_dir, &edge->b_dx, &edge->b_dy) < 0) {
        goto done;
    }
    if ((prev = PyObject_GetAttr(vertex, str_prev)) == NULL
            || (next_prev = PyObject_GetAttr(next, str_prev)) == NULL
            || get_vec2_attr(prev, str_unit_dir, &edge->a_prev_dx, &edge->a_prev_dy) < 0
            || get_vec2_attr(next_prev, str_unit_dir, &edge->b_prev_dx, &edge->b_prev_dy) < 0) {
        goto done;
    }
    PyObject *convex = PyObject_GetAttr(vertex, str_is_convex);
    if (convex == NULL || (edge->a_convex = PyObject_IsTrue(convex)) < 0) {
        Py_XDECREF(convex);
        goto done;
    }
    Py_DECREF(convex);
    convex = PyObject_GetAttr(next, str_is_convex);
    if (convex == NULL || (edge->b_convex = PyObject_IsTrue(convex)) < 0) {
        Py_XDECREF(convex);
        goto done;
    }
    Py_DECREF(convex);
    status = 0;
done:
    Py_XDECREF(next);
    Py_XDECREF(prev);
    Py_XDECREF(next_prev);
    if (status < 0 && (PyErr_ExceptionMatches(PyExc_AttributeError)
                       || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyErr_NormalizeException(&type, &value, &traceback);
        PyErr_Format(PyExc_TypeError,
                     "an obstacle edge must be an ObstacleVertex (point, unit_dir, "
                     "is_convex, next, prev), got %.100s: %S", Py_TYPE(vertex)->tp_name,
                     value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    }
    return status;
}

/* True when an earlier obstacle half-plane already excludes this edge's velocity
   obstacle: both cut-off centres, pushed out by the scaled radius, lie on the forbidden
   side of one line. */
static int
is_already_covered(const Line *lines, Py_ssize_t n, double rel1x, double rel1y,
                   double rel2x, double rel2y, double inv_time_horizon_obst, double radius)
{
    const double scaled_radius = inv_time_horizon_obst * radius;
    const double c1x = inv_time_horizon_obst * rel1x, c1y = inv_time_horizon_obst * rel1y;
    const double c2x = inv_time_horizon_obst * rel2x, c2y = inv_time_horizon_obst * rel2y;
    for (Py_ssize_t i = 0; i < n; i++) {
        const double px = lines[i].px, py = lines[i].py;
        const double dx = lines[i].dx, dy = lines[i].dy;
        if ((c1x - px) * dy - (c1y - py) * dx - scaled_radius >= -RVO_EPSILON
                && (c2x - px) * dy - (c2y - py) * dx - scaled_radius >= -RVO_EPSILON) {
            return 1;
        }
    }
    return 0;
}

static int
leg_length(double dist_sq, double radius, double *leg)
{
    const double square = dist_sq - radius * radius;
    if (square < 0.0) {  /* as math.sqrt: only reachable through rounding */
        PyErr_SetString(PyExc_ValueError, "math domain error (obstacle leg)");
        return -1;
    }
    *leg = sqrt(square);
    return 0;
}

static int
left_leg(double rx, double ry, double dist_sq, double radius, double *lx, double *ly)
{
    double leg;
    if (leg_length(dist_sq, radius, &leg) < 0) {
        return -1;
    }
    *lx = (rx * leg - ry * radius) / dist_sq;
    *ly = (rx * radius + ry * leg) / dist_sq;
    return 0;
}

static int
right_leg(double rx, double ry, double dist_sq, double radius, double *lx, double *ly)
{
    double leg;
    if (leg_length(dist_sq, radius, &leg) < 0) {
        return -1;
    }
    *lx = (rx * leg + ry * radius) / dist_sq;
    *ly = (-rx * radius + ry * leg) / dist_sq;
    return 0;
}

static void
set_line(Line *line, double px, double py, double dx, double dy)
{
    line->px = px;
    line->py = py;
    line->dx = dx;
    line->dy = dy;
}

/* The ORCA half-plane of a static obstacle edge (RVO2's obstacle loop, paper §6):
   1 when it gives one (in ``line``), 0 when it adds no constraint (already covered by
   ``lines``, seen from behind a non-convex vertex, projected onto a foreign leg), -1
   with an exception set. */
static int
obstacle_line(double pos_x, double pos_y, double vel_x, double vel_y, double radius,
              const Edge *e, double inv_time_horizon_obst, const Line *lines, Py_ssize_t n,
              Line *line)
{
    const double rel1x = e->ax - pos_x, rel1y = e->ay - pos_y;
    const double rel2x = e->bx - pos_x, rel2y = e->by - pos_y;

    if (is_already_covered(lines, n, rel1x, rel1y, rel2x, rel2y, inv_time_horizon_obst,
                           radius)) {
        return 0;
    }

    const double dist_sq1 = rel1x * rel1x + rel1y * rel1y;
    const double dist_sq2 = rel2x * rel2x + rel2y * rel2y;
    const double radius_sq = radius * radius;
    const double ovx = e->bx - e->ax, ovy = e->by - e->ay;
    const double ov_sq = ovx * ovx + ovy * ovy;
    if (ov_sq == 0.0) {
        return zero_division("an obstacle edge has zero length");
    }
    const double s = (-rel1x * ovx - rel1y * ovy) / ov_sq;
    const double lx = -rel1x - s * ovx, ly = -rel1y - s * ovy;
    const double dist_sq_line = lx * lx + ly * ly;

    /* Vertex 1 and vertex 2 of the velocity obstacle; obliquely seen, both are one. */
    double o1x = e->ax, o1y = e->ay, o1_dx = e->a_dx, o1_dy = e->a_dy;
    double o1_prev_dx = e->a_prev_dx, o1_prev_dy = e->a_prev_dy;
    int o1_convex = e->a_convex;
    double o2x = e->bx, o2y = e->by, o2_dx = e->b_dx, o2_dy = e->b_dy;
    int o2_convex = e->b_convex;
    int same_vertex = 0;
    double ll_x, ll_y, rl_x, rl_y;
    double ux, uy;

    /* Already colliding: push straight away from the vertex or the edge. */
    if (s < 0.0 && dist_sq1 <= radius_sq) {
        if (o1_convex) {
            normalize(-rel1y, rel1x, &ux, &uy);
            set_line(line, 0.0, 0.0, ux, uy);
            return 1;
        }
        return 0;
    }
    if (s > 1.0 && dist_sq2 <= radius_sq) {
        if (o2_convex && rel2x * o2_dy - rel2y * o2_dx >= 0.0) {
            normalize(-rel2y, rel2x, &ux, &uy);
            set_line(line, 0.0, 0.0, ux, uy);
            return 1;
        }
        return 0;
    }
    if (0.0 <= s && s <= 1.0 && dist_sq_line <= radius_sq) {
        set_line(line, 0.0, 0.0, -o1_dx, -o1_dy);
        return 1;
    }

    /* No collision: the legs of the velocity obstacle. Seen obliquely, both legs come
       from one vertex; at a non-convex vertex a leg extends the edge. */
    if (s < 0.0 && dist_sq_line <= radius_sq) {
        if (!o1_convex) {
            return 0;
        }
        o2x = o1x;
        o2y = o1y;
        o2_dx = o1_dx;
        o2_dy = o1_dy;
        o2_convex = o1_convex;
        same_vertex = 1;
        if (left_leg(rel1x, rel1y, dist_sq1, radius, &ll_x, &ll_y) < 0
                || right_leg(rel1x, rel1y, dist_sq1, radius, &rl_x, &rl_y) < 0) {
            return -1;
        }
    }
    else if (s > 1.0 && dist_sq_line <= radius_sq) {
        if (!o2_convex) {
            return 0;
        }
        o1x = o2x;
        o1y = o2y;
        o1_dx = o2_dx;
        o1_dy = o2_dy;
        o1_prev_dx = e->b_prev_dx;
        o1_prev_dy = e->b_prev_dy;
        o1_convex = o2_convex;
        same_vertex = 1;
        if (left_leg(rel2x, rel2y, dist_sq2, radius, &ll_x, &ll_y) < 0
                || right_leg(rel2x, rel2y, dist_sq2, radius, &rl_x, &rl_y) < 0) {
            return -1;
        }
    }
    else {
        if (o1_convex) {
            if (left_leg(rel1x, rel1y, dist_sq1, radius, &ll_x, &ll_y) < 0) {
                return -1;
            }
        }
        else {
            ll_x = -o1_dx;
            ll_y = -o1_dy;
        }
        if (o2_convex) {
            if (right_leg(rel2x, rel2y, dist_sq2, radius, &rl_x, &rl_y) < 0) {
                return -1;
            }
        }
        else {
            rl_x = o1_dx;
            rl_y = o1_dy;
        }
    }

    /* A leg may not point into the neighbouring edge at a convex vertex; then that
       edge's cut-off line is used instead and the leg is "foreign". */
    int left_foreign = 0, right_foreign = 0;
    if (o1_convex && ll_x * -o1_prev_dy - ll_y * -o1_prev_dx >= 0.0) {
        ll_x = -o1_prev_dx;
        ll_y = -o1_prev_dy;
        left_foreign = 1;
    }
    if (o2_convex && rl_x * o2_dy - rl_y * o2_dx <= 0.0) {
        rl_x = o2_dx;
        rl_y = o2_dy;
        right_foreign = 1;
    }

    /* Cut-off centres: the vertices scaled by 1/time_horizon_obst. */
    const double lc_x = inv_time_horizon_obst * (o1x - pos_x);
    const double lc_y = inv_time_horizon_obst * (o1y - pos_y);
    const double rc_x = inv_time_horizon_obst * (o2x - pos_x);
    const double rc_y = inv_time_horizon_obst * (o2y - pos_y);
    const double cv_x = rc_x - lc_x, cv_y = rc_y - lc_y;

    const double vlx = vel_x - lc_x, vly = vel_y - lc_y;
    const double vrx = vel_x - rc_x, vry = vel_y - rc_y;
    double t;
    if (same_vertex) {
        t = 0.5;
    }
    else {
        const double cv_sq = cv_x * cv_x + cv_y * cv_y;
        if (cv_sq == 0.0) {
            return zero_division("the cut-off line of an obstacle edge has zero length");
        }
        t = (vlx * cv_x + vly * cv_y) / cv_sq;
    }
    const double t_left = vlx * ll_x + vly * ll_y;
    const double t_right = vrx * rl_x + vry * rl_y;
    const double scaled_radius = radius * inv_time_horizon_obst;

    if ((t < 0.0 && t_left < 0.0) || (same_vertex && t_left < 0.0 && t_right < 0.0)) {
        normalize(vlx, vly, &ux, &uy);  /* project on the left cut-off circle */
        set_line(line, lc_x + scaled_radius * ux, lc_y + scaled_radius * uy, uy, -ux);
        return 1;
    }
    if (t > 1.0 && t_right < 0.0) {
        normalize(vrx, vry, &ux, &uy);  /* project on the right cut-off circle */
        set_line(line, rc_x + scaled_radius * ux, rc_y + scaled_radius * uy, uy, -ux);
        return 1;
    }

    /* Project on the left leg, the right leg, or the cut-off line, whichever is closest. */
    double dist_sq_cutoff, dist_sq_left, dist_sq_right;
    if (t < 0.0 || t > 1.0 || same_vertex) {
        dist_sq_cutoff = Py_HUGE_VAL;
    }
    else {
        const double ex = vel_x - (lc_x + t * cv_x), ey = vel_y - (lc_y + t * cv_y);
        dist_sq_cutoff = ex * ex + ey * ey;
    }
    if (t_left < 0.0) {
        dist_sq_left = Py_HUGE_VAL;
    }
    else {
        const double ex = vel_x - (lc_x + t_left * ll_x), ey = vel_y - (lc_y + t_left * ll_y);
        dist_sq_left = ex * ex + ey * ey;
    }
    if (t_right < 0.0) {
        dist_sq_right = Py_HUGE_VAL;
    }
    else {
        const double ex = vel_x - (rc_x + t_right * rl_x), ey = vel_y - (rc_y + t_right * rl_y);
        dist_sq_right = ex * ex + ey * ey;
    }

    if (dist_sq_cutoff <= dist_sq_left && dist_sq_cutoff <= dist_sq_right) {
        const double dx = -o1_dx, dy = -o1_dy;
        set_line(line, lc_x - scaled_radius * dy, lc_y + scaled_radius * dx, dx, dy);
        return 1;
    }
    if (dist_sq_left <= dist_sq_right) {
        if (left_foreign) {
            return 0;
        }
        set_line(line, lc_x - scaled_radius * ll_y, lc_y + scaled_radius * ll_x, ll_x, ll_y);
        return 1;
    }
    if (right_foreign) {
        return 0;
    }
    const double dx = -rl_x, dy = -rl_y;
    set_line(line, rc_x - scaled_radius * dy, rc_y + scaled_radius * dx, dx, dy);
    return 1;
}

/* ------------------------------------------------------------------------------------ */
/* Neighbour selection (RVO2's computeNeighbors)                                         */

typedef struct {
    double dist_sq;
    Py_ssize_t index;
} Ranked;

static int
compare_ranked(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->dist_sq < y->dist_sq) {
        return -1;
    }
    if (x->dist_sq > y->dist_sq) {
        return 1;
    }
    return (x->index > y->index) - (x->index < y->index);
}

/* Agents strictly inside ``neighbor_dist``, nearest ``max_neighbors`` first (ties by
   index). Fills ``ranked`` (room for all) and returns how many were kept. */
static Py_ssize_t
rank_agents(double px, double py, double neighbor_dist, Py_ssize_t max_neighbors,
            PyObject *fast, Ranked *ranked)
{
    if (max_neighbors <= 0) {
        return 0;
    }
    const double range_sq = neighbor_dist * neighbor_dist;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast), count = 0;
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        double ox, oy;
        if (get_vec2_attr(items[i], str_position, &ox, &oy) < 0) {
            return -1;
        }
        const double dist_sq = (ox - px) * (ox - px) + (oy - py) * (oy - py);
        if (dist_sq < range_sq) {
            ranked[count].dist_sq = dist_sq;
            ranked[count].index = i;
            count++;
        }
    }
    qsort(ranked, (size_t)count, sizeof(Ranked), compare_ranked);
    return count < max_neighbors ? count : max_neighbors;
}

/* Squared distance from c to segment a-b (RVO2's distSqPointLineSegment). */
static int
dist_sq_point_segment(double ax, double ay, double bx, double by, double cx, double cy,
                      double *out)
{
    const double abx = bx - ax, aby = by - ay;
    const double ab_sq = abx * abx + aby * aby;
    if (ab_sq == 0.0) {
        return zero_division("an obstacle edge has zero length");
    }
    const double r = ((cx - ax) * abx + (cy - ay) * aby) / ab_sq;
    double dx, dy;
    if (r < 0.0) {
        dx = cx - ax;
        dy = cy - ay;
    }
    else if (r > 1.0) {
        dx = cx - bx;
        dy = cy - by;
    }
    else {
        dx = cx - (ax + r * abx);
        dy = cy - (ay + r * aby);
    }
    *out = dx * dx + dy * dy;
    return 0;
}

/* Edges closer than ``reach`` whose outer (right-hand) side faces (px, py), nearest
   first, ties in list order. Fills ``ranked`` and returns how many. */
static Py_ssize_t
rank_edges(double px, double py, double reach, PyObject *fast, Ranked *ranked)
{
    const double range_sq = reach * reach;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast), count = 0;
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        Edge e;
        if (read_edge(items[i], &e, 1) < 0) {
            return -1;
        }
        const double agent_left_of_line = (e.ax - px) * (e.by - e.ay) - (e.ay - py) * (e.bx - e.ax);
        if (agent_left_of_line >= 0.0) {
            continue;
        }
        double dist_sq;
        if (dist_sq_point_segment(e.ax, e.ay, e.bx, e.by, px, py, &dist_sq) < 0) {
            return -1;
        }
        if (dist_sq < range_sq) {
            ranked[count].dist_sq = dist_sq;
            ranked[count].index = i;
            count++;
        }
    }
    qsort(ranked, (size_t)count, sizeof(Ranked), compare_ranked);
    return count;
}

/* ------------------------------------------------------------------------------------ */
/* The whole of computeNewVelocity after neighbour selection                             */

typedef struct {
    double pos_x, pos_y, vel_x, vel_y, radius, max_speed, pref_x, pref_y;
    double time_horizon, time_horizon_obst, time_step;
} Agent;

/* Obstacle half-planes, then hard, yielding and agent ones, then the programs.
   ``edges`` are ObstacleVertex objects (``edge_order``: their order, or NULL for
   0..num_edges-1); ``agent_lines`` (already read into ``buf`` after ``num_kept``) or
   ``neighbors``. Returns (velocity, lines, num_obstacle_lines, used_fallback). */
static PyObject *
solve(const Agent *a, PyObject **edges, const Ranked *edge_order, Py_ssize_t num_edges,
      PyObject *hard_fast, PyObject *yielding_fast, PyObject *agent_fast,
      const Neighbor *neighbors, Py_ssize_t num_neighbors)
{
    LineBuf buf;
    Line stack_scratch[STACK_LINES];
    Line *scratch = stack_scratch;
    PyObject *result = NULL;
    linebuf_init(&buf);

    Py_ssize_t total = num_edges + PySequence_Fast_GET_SIZE(hard_fast)
        + PySequence_Fast_GET_SIZE(yielding_fast)
        + (agent_fast != NULL ? PySequence_Fast_GET_SIZE(agent_fast) : num_neighbors);
    if (linebuf_reserve(&buf, total) < 0) {
        goto done;
    }

    const double inv_time_horizon_obst = 1.0 / a->time_horizon_obst;
    for (Py_ssize_t k = 0; k < num_edges; k++) {
        Edge e;
        PyObject *vertex = edges[edge_order != NULL ? edge_order[k].index : k];
        if (read_edge(vertex, &e, 0) < 0) {
            goto done;
        }
        int status = obstacle_line(a->pos_x, a->pos_y, a->vel_x, a->vel_y, a->radius, &e,
                                   inv_time_horizon_obst, buf.lines, buf.size,
                                   &buf.lines[buf.size]);
        if (status < 0) {
            goto done;
        }
        if (status) {
            buf.src[buf.size++] = NULL;
        }
    }
    const Py_ssize_t num_obstacle_lines = buf.size;
    if (linebuf_extend(&buf, hard_fast, "hard_half_planes") < 0) {
        goto done;
    }
    const Py_ssize_t num_hard_lines = buf.size;
    if (linebuf_extend(&buf, yielding_fast, "yielding_half_planes") < 0) {
        goto done;
    }
    const Py_ssize_t num_kept_lines = buf.size;  /* what the fallback keeps when these agree */

    if (agent_fast != NULL) {
        if (linebuf_extend(&buf, agent_fast, "agent_half_planes") < 0) {
            goto done;
        }
    }
    else {
        const double inv_time_horizon = 1.0 / a->time_horizon;
        const double inv_time_step = 1.0 / a->time_step;
        for (Py_ssize_t k = 0; k < num_neighbors; k++) {
            const Neighbor *nb = &neighbors[k];
            agent_line(a->vel_x, a->vel_y, nb->x - a->pos_x, nb->y - a->pos_y, nb->vx, nb->vy,
                       a->radius + nb->radius, inv_time_horizon, inv_time_step, nb->share,
                       &buf.lines[buf.size]);
            buf.src[buf.size++] = NULL;
        }
    }

    double vx, vy;
    const Py_ssize_t n = buf.size;
    const Py_ssize_t fail = lp_2d(buf.lines, n, a->max_speed, a->pref_x, a->pref_y, 0, &vx, &vy);
    const int used_fallback = fail < n;
    if (used_fallback) {
        if (n > STACK_LINES && (scratch = PyMem_Malloc((size_t)n * sizeof(Line))) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        int status;
        if (num_obstacle_lines <= fail && fail < num_hard_lines) {
            /* The hard half-planes contradict each other (an agent squeezed from two
               sides, or rounding at contact): violate them least, keeping obstacle
               half-planes, and let the agent ones go. */
            status = lp_3d(buf.lines, num_hard_lines, num_obstacle_lines, fail, a->max_speed,
                           &vx, &vy, scratch);
        }
        else {
            const Py_ssize_t kept = fail >= num_kept_lines ? num_kept_lines : num_hard_lines;
            status = lp_3d(buf.lines, n, kept, fail, a->max_speed, &vx, &vy, scratch);
        }
        if (status < 0) {
            goto done;
        }
    }

    PyObject *velocity = pair(vx, vy);
    PyObject *lines = velocity != NULL ? lines_tuple(&buf) : NULL;
    if (lines == NULL) {
        Py_XDECREF(velocity);
        goto done;
    }
    result = Py_BuildValue("(NNnO)", velocity, lines, num_obstacle_lines,
                           used_fallback ? Py_True : Py_False);
done:
    if (scratch != stack_scratch) {
        PyMem_Free(scratch);
    }
    linebuf_free(&buf);
    return result;
}

static int
nonzero(double value, const char *name)
{
    if (value == 0.0) {
        PyErr_Format(PyExc_ZeroDivisionError, "float division by zero (%s is 0)", name);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Module functions                                                                      */

PyDoc_STRVAR(linear_program_2d_doc,
"linear_program_2d(lines, radius, opt_velocity, direction_opt) -> (fail_index, (x, y))\n\n"
"RVO2's linearProgram2; see orca_ros.core.geometry.linprog.linear_program_2d.");

static PyObject *
py_linear_program_2d(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double radius, ox, oy, rx, ry;
    if (check_nargs("linear_program_2d", nargs, 4) < 0
            || arg_double(args[1], "radius", &radius) < 0
            || read_vec2(args[2], "opt_velocity", -1, &ox, &oy) < 0) {
        return NULL;
    }
    int direction_opt = PyObject_IsTrue(args[3]);
    if (direction_opt < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[0], "lines");
    if (fast == NULL) {
        return NULL;
    }
    LineBuf buf;
    linebuf_init(&buf);
    PyObject *result = NULL;
    if (linebuf_extend(&buf, fast, "lines") == 0) {
        Py_ssize_t fail = lp_2d(buf.lines, buf.size, radius, ox, oy, direction_opt, &rx, &ry);
        result = Py_BuildValue("(nN)", fail, pair(rx, ry));
    }
    linebuf_free(&buf);
    Py_DECREF(fast);
    return result;
}

PyDoc_STRVAR(linear_program_3d_doc,
"linear_program_3d(lines, num_obstacle_lines, begin_line, radius, velocity) -> (x, y)\n\n"
"RVO2's linearProgram3; see orca_ros.core.geometry.linprog.linear_program_3d.");

static PyObject *
py_linear_program_3d(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t num_obstacle_lines, begin_line;
    double radius, vx, vy;
    if (check_nargs("linear_program_3d", nargs, 5) < 0
            || arg_index(args[1], "num_obstacle_lines", &num_obstacle_lines) < 0
            || arg_index(args[2], "begin_line", &begin_line) < 0
            || arg_double(args[3], "radius", &radius) < 0
            || read_vec2(args[4], "velocity", -1, &vx, &vy) < 0) {
        return NULL;
    }
    if (num_obstacle_lines < 0 || begin_line < 0) {
        PyErr_Format(PyExc_ValueError,
                     "num_obstacle_lines and begin_line must be >= 0, got %zd and %zd",
                     num_obstacle_lines, begin_line);
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[0], "lines");
    if (fast == NULL) {
        return NULL;
    }
    LineBuf buf;
    Line *scratch = NULL;
    PyObject *result = NULL;
    linebuf_init(&buf);
    if (linebuf_extend(&buf, fast, "lines") == 0) {
        scratch = PyMem_Malloc((size_t)(buf.size > 0 ? buf.size : 1) * sizeof(Line));
        if (scratch == NULL) {
            PyErr_NoMemory();
        }
        else if (lp_3d(buf.lines, buf.size, num_obstacle_lines, begin_line, radius, &vx, &vy,
                       scratch) == 0) {
            result = pair(vx, vy);
        }
    }
    PyMem_Free(scratch);
    linebuf_free(&buf);
    Py_DECREF(fast);
    return result;
}

PyDoc_STRVAR(agent_orca_half_plane_doc,
"agent_orca_half_plane(velocity, other_position_rel, other_velocity, combined_radius,\n"
"                      inv_time_horizon, inv_time_step, responsibility) -> HalfPlane\n\n"
"See orca_ros.core.orca.orca2d.agent_orca_half_plane.");

static PyObject *
py_agent_orca_half_plane(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double vx, vy, rx, ry, ovx, ovy, combined_radius = 0.0, inv_tau = 0.0, inv_dt = 0.0,
        share = 0.0;
    Line line;
    if (check_nargs("agent_orca_half_plane", nargs, 7) < 0
            || read_vec2(args[0], "velocity", -1, &vx, &vy) < 0
            || read_vec2(args[1], "other_position_rel", -1, &rx, &ry) < 0
            || read_vec2(args[2], "other_velocity", -1, &ovx, &ovy) < 0
            || arg_double(args[3], "combined_radius", &combined_radius) < 0
            || arg_double(args[4], "inv_time_horizon", &inv_tau) < 0
            || arg_double(args[5], "inv_time_step", &inv_dt) < 0
            || arg_double(args[6], "responsibility", &share) < 0) {
        return NULL;
    }
    agent_line(vx, vy, rx, ry, ovx, ovy, combined_radius, inv_tau, inv_dt, share, &line);
    return new_half_plane(&line);
}

PyDoc_STRVAR(obstacle_orca_half_plane_doc,
"obstacle_orca_half_plane(position, velocity, radius, edge, inv_time_horizon_obst, lines)\n"
"    -> HalfPlane or None\n\n"
"See orca_ros.core.orca.orca2d.obstacle_orca_half_plane.");

static PyObject *
py_obstacle_orca_half_plane(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, vx, vy, radius, inv_tho;
    Edge e;
    Line line;
    if (check_nargs("obstacle_orca_half_plane", nargs, 6) < 0
            || read_vec2(args[0], "position", -1, &px, &py) < 0
            || read_vec2(args[1], "velocity", -1, &vx, &vy) < 0
            || arg_double(args[2], "radius", &radius) < 0
            || arg_double(args[4], "inv_time_horizon_obst", &inv_tho) < 0
            || read_edge(args[3], &e, 0) < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[5], "lines");
    if (fast == NULL) {
        return NULL;
    }
    LineBuf buf;
    PyObject *result = NULL;
    linebuf_init(&buf);
    if (linebuf_extend(&buf, fast, "lines") == 0) {
        int status = obstacle_line(px, py, vx, vy, radius, &e, inv_tho, buf.lines, buf.size,
                                   &line);
        if (status == 0) {
            result = Py_NewRef(Py_None);
        }
        else if (status > 0) {
            result = new_half_plane(&line);
        }
    }
    linebuf_free(&buf);
    Py_DECREF(fast);
    return result;
}

/* The items of ``fast`` at the ranked indices, as a new list. */
static PyObject *
ranked_list(PyObject *fast, const Ranked *ranked, Py_ssize_t count)
{
    PyObject *list = PyList_New(count);
    if (list == NULL) {
        return NULL;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = items[ranked[k].index];
        Py_INCREF(item);
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

PyDoc_STRVAR(select_agent_neighbors_doc,
"select_agent_neighbors(position, neighbor_dist, max_neighbors, neighbors) -> list\n\n"
"See orca_ros.core.orca.orca2d.select_agent_neighbors.");

static PyObject *
py_select_agent_neighbors(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, neighbor_dist;
    Py_ssize_t max_neighbors;
    if (check_nargs("select_agent_neighbors", nargs, 4) < 0
            || read_vec2(args[0], "position", -1, &px, &py) < 0
            || arg_double(args[1], "neighbor_dist", &neighbor_dist) < 0
            || arg_index(args[2], "max_neighbors", &max_neighbors) < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[3], "neighbors");
    if (fast == NULL) {
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    Ranked *ranked = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Ranked));
    if (ranked == NULL) {
        PyErr_NoMemory();
    }
    else {
        Py_ssize_t count = rank_agents(px, py, neighbor_dist, max_neighbors, fast, ranked);
        if (count >= 0) {
            result = ranked_list(fast, ranked, count);
        }
    }
    PyMem_Free(ranked);
    Py_DECREF(fast);
    return result;
}

PyDoc_STRVAR(select_visible_edges_doc,
"select_visible_edges(position, reach, edges) -> list\n\n"
"The brute-force search of orca_ros.core.orca.orca2d.select_visible_edges.");

static PyObject *
py_select_visible_edges(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double px, py, reach;
    if (check_nargs("select_visible_edges", nargs, 3) < 0
            || read_vec2(args[0], "position", -1, &px, &py) < 0
            || arg_double(args[1], "reach", &reach) < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[2], "edges");
    if (fast == NULL) {
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    Ranked *ranked = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Ranked));
    if (ranked == NULL) {
        PyErr_NoMemory();
    }
    else {
        Py_ssize_t count = rank_edges(px, py, reach, fast, ranked);
        if (count >= 0) {
            result = ranked_list(fast, ranked, count);
        }
    }
    PyMem_Free(ranked);
    Py_DECREF(fast);
    return result;
}

static int
read_agent(PyObject *const *args, Agent *a)
{
    return (read_vec2(args[0], "position", -1, &a->pos_x, &a->pos_y) < 0
            || read_vec2(args[1], "velocity", -1, &a->vel_x, &a->vel_y) < 0
            || arg_double(args[2], "radius", &a->radius) < 0
            || arg_double(args[3], "max_speed", &a->max_speed) < 0
            || read_vec2(args[4], "pref_velocity", -1, &a->pref_x, &a->pref_y) < 0
            || arg_double(args[5], "time_horizon", &a->time_horizon) < 0
            || arg_double(args[6], "time_horizon_obst", &a->time_horizon_obst) < 0) ? -1 : 0;
}

PyDoc_STRVAR(solve_orca_doc,
"solve_orca(position, velocity, radius, max_speed, pref_velocity, time_horizon,\n"
"           time_horizon_obst, time_step, neighbors, obstacle_edges, hard_half_planes,\n"
"           agent_half_planes, yielding_half_planes)\n"
"    -> (velocity, half_planes, num_obstacle_half_planes, used_fallback)\n\n"
"See orca_ros.core.orca.orca2d.solve_orca; agent_half_planes may be None.");

static PyObject *
py_solve_orca(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Agent a;
    if (check_nargs("solve_orca", nargs, 13) < 0 || read_agent(args, &a) < 0
            || arg_double(args[7], "time_step", &a.time_step) < 0
            || nonzero(a.time_horizon_obst, "time_horizon_obst") < 0) {
        return NULL;
    }
    PyObject *neighbors_fast = NULL, *edges_fast = NULL, *hard_fast = NULL,
        *yielding_fast = NULL, *agent_fast = NULL, *result = NULL;
    Neighbor *neighbors = NULL;
    Py_ssize_t num_neighbors = 0;

    if ((edges_fast = as_fast_sequence(args[9], "obstacle_edges")) == NULL
            || (hard_fast = as_fast_sequence(args[10], "hard_half_planes")) == NULL
            || (yielding_fast = as_fast_sequence(args[12], "yielding_half_planes")) == NULL) {
        goto done;
    }
    if (args[11] != Py_None) {
        if ((agent_fast = as_fast_sequence(args[11], "agent_half_planes")) == NULL) {
            goto done;
        }
    }
    else {
        if (nonzero(a.time_horizon, "time_horizon") < 0
                || nonzero(a.time_step, "time_step") < 0
                || (neighbors_fast = as_fast_sequence(args[8], "neighbors")) == NULL) {
            goto done;
        }
        num_neighbors = PySequence_Fast_GET_SIZE(neighbors_fast);
        neighbors = PyMem_Malloc((size_t)(num_neighbors > 0 ? num_neighbors : 1)
                                 * sizeof(Neighbor));
        if (neighbors == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        PyObject **items = PySequence_Fast_ITEMS(neighbors_fast);
        for (Py_ssize_t k = 0; k < num_neighbors; k++) {
            double v[6];
            Py_ssize_t got;
            if (read_numbers(items[k], v, 6, 5, &got, "neighbors", k,
                             "5 or 6 numbers (x, y, vx, vy, radius[, share])") < 0) {
                goto done;
            }
            neighbors[k] = (Neighbor){v[0], v[1], v[2], v[3], v[4], got > 5 ? v[5] : 0.5};
        }
    }
    result = solve(&a, PySequence_Fast_ITEMS(edges_fast), NULL,
                   PySequence_Fast_GET_SIZE(edges_fast), hard_fast, yielding_fast, agent_fast,
                   neighbors, num_neighbors);
done:
    PyMem_Free(neighbors);
    Py_XDECREF(neighbors_fast);
    Py_XDECREF(edges_fast);
    Py_XDECREF(hard_fast);
    Py_XDECREF(yielding_fast);
    Py_XDECREF(agent_fast);
    return result;
}

PyDoc_STRVAR(compute_new_velocity_doc,
"compute_new_velocity(position, velocity, radius, max_speed, pref_velocity, time_horizon,\n"
"                     time_horizon_obst, time_step, neighbor_dist, max_neighbors,\n"
"                     obstacle_reach, margin, neighbors, obstacle_edges)\n"
"    -> (velocity, half_planes, num_obstacle_half_planes, used_fallback)\n\n"
"Neighbour selection, then solve_orca: see orca_ros.core.orca.orca2d.compute_new_velocity.\n"
"``neighbors`` are NeighborState objects, ``obstacle_edges`` the candidate edges.");

static PyObject *
py_compute_new_velocity(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Agent a;
    double neighbor_dist = 0.0, reach = 0.0, margin = 0.0;
    Py_ssize_t max_neighbors = 0;
    if (check_nargs("compute_new_velocity", nargs, 14) < 0 || read_agent(args, &a) < 0
            || arg_double(args[7], "time_step", &a.time_step) < 0
            || arg_double(args[8], "neighbor_dist", &neighbor_dist) < 0
            || arg_index(args[9], "max_neighbors", &max_neighbors) < 0
            || arg_double(args[10], "obstacle_reach", &reach) < 0
            || arg_double(args[11], "margin", &margin) < 0
            || nonzero(a.time_horizon_obst, "time_horizon_obst") < 0
            || nonzero(a.time_horizon, "time_horizon") < 0
            || nonzero(a.time_step, "time_step") < 0) {
        return NULL;
    }
    PyObject *neighbors_fast = NULL, *edges_fast = NULL, *empty = NULL, *result = NULL;
    Ranked *ranked_agents = NULL, *ranked_edges = NULL;
    Neighbor *neighbors = NULL;
    if ((neighbors_fast = as_fast_sequence(args[12], "neighbors")) == NULL
            || (edges_fast = as_fast_sequence(args[13], "obstacle_edges")) == NULL
            || (empty = PyTuple_New(0)) == NULL) {
        goto done;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(neighbors_fast);
    Py_ssize_t m = PySequence_Fast_GET_SIZE(edges_fast);
    ranked_agents = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Ranked));
    neighbors = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Neighbor));
    ranked_edges = PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(Ranked));
    if (ranked_agents == NULL || neighbors == NULL || ranked_edges == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t count = rank_agents(a.pos_x, a.pos_y, neighbor_dist, max_neighbors,
                                   neighbors_fast, ranked_agents);
    if (count < 0) {
        goto done;
    }
    PyObject **items = PySequence_Fast_ITEMS(neighbors_fast);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *other = items[ranked_agents[k].index];
        Neighbor *nb = &neighbors[k];
        if (get_vec2_attr(other, str_position, &nb->x, &nb->y) < 0
                || get_vec2_attr(other, str_velocity, &nb->vx, &nb->vy) < 0) {
            goto done;
        }
        PyObject *radius = PyObject_GetAttr(other, str_radius);
        if (radius == NULL) {
            goto done;
        }
        int status = arg_double(radius, "neighbor radius", &nb->radius);
        Py_DECREF(radius);
        if (status < 0) {
            goto done;
        }
        nb->radius = nb->radius + margin;
        nb->share = 0.5;
    }
    Py_ssize_t num_edges = rank_edges(a.pos_x, a.pos_y, reach, edges_fast, ranked_edges);
    if (num_edges < 0) {
        goto done;
    }
    a.radius = a.radius + margin;
    result = solve(&a, PySequence_Fast_ITEMS(edges_fast), ranked_edges, num_edges, empty,
                   empty, NULL, neighbors, count);
done:
    PyMem_Free(ranked_agents);
    PyMem_Free(ranked_edges);
    PyMem_Free(neighbors);
    Py_XDECREF(neighbors_fast);
    Py_XDECREF(edges_fast);
    Py_XDECREF(empty);
    return result;
}

PyDoc_STRVAR(set_half_plane_type_doc,
"set_half_plane_type(cls)\n\n"
"The HalfPlane class (a tuple subclass of four fields) this module returns half-planes "
"as; orca_ros.core.geometry.linprog sets it on import.");

static PyObject *
py_set_half_plane_type(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "the HalfPlane type must be a subclass of tuple");
        return NULL;
    }
    Py_INCREF(cls);
    Py_XSETREF(half_plane_type, (PyTypeObject *)cls);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------ */
/* The one-step safety filter (orca_ros/core/robot/safety_filter.py: SafetyFilter's
   within_one_step and half_planes, one_step_safety_half_plane, least_retreat,
   braking_speed, one_step_obstacle_half_plane, edge_distance), in the order of
   operations of the Python reference in test/helpers/safety_reference.py, with Python's
   min, max and hypot (py_min, py_max, py_hypot: orca_ros/core/pymath.h). */

#define SAFETY_TIE_EPSILON 1e-12

typedef struct {
    double time_step, horizon, tracking_error, max_speed;
    double braking;                   /* braking_accel, when has_braking */
    int has_braking;
} SafetyParams;

/* SafetyFilter.closing_distance */
static double
closing_distance(const SafetyParams *p, double vx, double vy, double tx, double ty)
{
    if (!p->has_braking) {
        return 0.0;
    }
    double speed = py_hypot(vx, vy);
    if (speed < 1e-12) {
        return 0.0;
    }
    double facing = (vx * tx + vy * ty) / speed;
    if (facing <= 0.0) {
        return 0.0;
    }
    double v = py_min(speed + p->braking * p->time_step, p->max_speed);
    return facing * (v * p->horizon + v * v / (2.0 * p->braking));
}

/* ControllerConfig.safety_radius */
static double
safety_radius(const SafetyParams *p, double radius)
{
    return radius + p->tracking_error + 1e-4;   /* SAFETY_ROUNDING_MARGIN */
}

/* braking_speed(gap, a, time_step, hold) */
static double
braking_speed(double gap, double accel, double time_step, double hold)
{
    double usable = gap - 0.125 * accel * time_step * time_step;
    if (usable <= 0.0) {
        return 0.0;
    }
    double head = py_max(hold, time_step) - 0.5 * time_step;
    return accel * (sqrt(head * head + 2.0 * usable / accel) - head);
}

/* least_retreat(velocity, (nx, ny), braking, hold, time_step) */
static double
least_retreat(const SafetyParams *p, double vx, double vy, double nx, double ny, double hold)
{
    double along = 0.0 + vx * nx;            /* sum() starts from 0 */
    along = along + vy * ny;
    if (along <= 0.0) {
        return along * hold;
    }
    double speed = py_hypot(vx, vy);
    if (!p->has_braking) {
        return 0.0;
    }
    double a = p->braking, travel;
    if (speed > a * hold) {
        travel = speed * hold - 0.5 * a * hold * (hold + p->time_step);
    }
    else {
        travel = py_max(0.0, speed * speed / (2.0 * a) - 0.5 * speed * p->time_step);
    }
    return along / speed * travel;
}

/* one_step_safety_half_plane(rel, combined, time_step, tie, braking, contact, horizon,
   other_velocity or None) */
static void
safety_line(const SafetyParams *p, double rx, double ry, double combined, double tie_x,
            double tie_y, int has_contact, double contact, int reciprocates, double ovx,
            double ovy, Line *line)
{
    double distance = sqrt(rx * rx + ry * ry);
    double nx, ny;
    if (distance > SAFETY_TIE_EPSILON) {
        nx = rx / distance;
        ny = ry / distance;
    }
    else {
        nx = tie_x;
        ny = tie_y;
    }
    double hold = py_max(p->horizon, p->time_step);
    double share = reciprocates ? 0.5 : 1.0;
    double gap = distance - combined;
    double retreat = 0.0, closing = 0.0;
    if (!reciprocates) {
        double along = ovx * nx + ovy * ny;
        if (along > 0.0) {
            retreat = least_retreat(p, ovx, ovy, nx, ny, hold);
        }
        else {
            closing = along;
        }
    }
    double room = share * gap + retreat;
    double limit = room / hold;
    if (gap < 0.0 && has_contact) {
        limit = py_min(0.0, share * (distance - contact) / hold);
    }
    if (p->has_braking && gap > 0.0) {
        limit = py_min(limit, braking_speed(room, p->braking, p->time_step, hold));
    }
    line->px = nx * (limit + closing);
    line->py = ny * (limit + closing);
    line->dx = -ny;
    line->dy = nx;
}

/* one_step_obstacle_half_plane(position, radius, edge, time_step, braking, contact,
   horizon): 0 for a point on the edge (None), -1 on error (a zero-length edge divides
   by zero, as in Python). */
static int
obstacle_safety_line(const SafetyParams *p, double px, double py, double radius,
                     const Edge *e, int has_contact, double contact, Line *line)
{
    double abx = e->bx - e->ax, aby = e->by - e->ay;
    double length2 = abx * abx + aby * aby;
    if (length2 == 0.0) {
        return zero_division("a zero-length obstacle edge");
    }
    double t = ((px - e->ax) * abx + (py - e->ay) * aby) / length2;
    t = py_min(py_max(t, 0.0), 1.0);
    double nx = e->ax + t * abx - px, ny = e->ay + t * aby - py;
    double distance = sqrt(nx * nx + ny * ny);
    if (distance < SAFETY_TIE_EPSILON) {
        return 0;
    }
    nx = nx / distance;
    ny = ny / distance;
    double hold = py_max(p->horizon, p->time_step);
    double gap = distance - radius;
    double limit = gap / hold;
    if (gap < 0.0 && has_contact) {
        limit = py_min(0.0, (distance - contact) / hold);
    }
    if (p->has_braking && gap > 0.0) {
        limit = py_min(limit, braking_speed(gap, p->braking, p->time_step, hold));
    }
    line->px = nx * limit;
    line->py = ny * limit;
    line->dx = -ny;
    line->dy = nx;
    return 1;
}

/* edge_distance(position, edge) */
static double
edge_distance(double px, double py, const Edge *e)
{
    double abx = e->bx - e->ax, aby = e->by - e->ay;
    double length2 = abx * abx + aby * aby;
    double t = length2 == 0.0 ? 0.0 : ((px - e->ax) * abx + (py - e->ay) * aby) / length2;
    t = py_min(py_max(t, 0.0), 1.0);
    return py_hypot(e->ax + t * abx - px, e->ay + t * aby - py);
}

/* A neighbour as the safety filter reads it: a Neighbor (orca_ros/core/robot/state.py,
   a NamedTuple: position, velocity, radius, key, uncertainty, reciprocates,
   age_uncertainty) read by index, anything else by attribute. ``key`` is borrowed from
   the neighbour when wanted (it stays alive in the caller's sequence). Without an
   ``age_uncertainty`` all of its uncertainty is taken as age's (the larger margin). */
typedef struct {
    double x, y, vx, vy, radius, uncertainty, age_uncertainty;
    int reciprocates;
    PyObject *key;
} SafetyNeighbor;

static PyObject *str_key, *str_uncertainty, *str_reciprocates, *str_age_uncertainty;

/* n's age_uncertainty: index 6 of a Neighbor, else its attribute, else its uncertainty */
static int
read_age_uncertainty(PyObject *obj, SafetyNeighbor *n)
{
    if (PyTuple_Check(obj)) {
        if (PyTuple_GET_SIZE(obj) < 7) {
            n->age_uncertainty = n->uncertainty;
            return 0;
        }
        return arg_double(PyTuple_GET_ITEM(obj, 6), "neighbor age_uncertainty",
                          &n->age_uncertainty);
    }
    PyObject *value = PyObject_GetAttr(obj, str_age_uncertainty);
    if (value == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        n->age_uncertainty = n->uncertainty;
        return 0;
    }
    int status = arg_double(value, "neighbor age_uncertainty", &n->age_uncertainty);
    Py_DECREF(value);
    return status;
}

static int
read_safety_neighbor(PyObject *obj, SafetyNeighbor *n, Py_ssize_t index, int want_key)
{
    PyObject *position, *velocity, *radius, *uncertainty, *reciprocates, *key;
    PyObject *owned[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    int status = -1;
    if (PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) >= 6) {
        position = PyTuple_GET_ITEM(obj, 0);
        velocity = PyTuple_GET_ITEM(obj, 1);
        radius = PyTuple_GET_ITEM(obj, 2);
        key = PyTuple_GET_ITEM(obj, 3);
        uncertainty = PyTuple_GET_ITEM(obj, 4);
        reciprocates = PyTuple_GET_ITEM(obj, 5);
    }
    else {
        PyObject *names[6] = {str_position, str_velocity, str_radius, str_key,
                              str_uncertainty, str_reciprocates};
        for (int k = 0; k < 6; k++) {
            if (k == 3 && !want_key) {
                continue;
            }
            if ((owned[k] = PyObject_GetAttr(obj, names[k])) == NULL) {
                goto done;
            }
        }
        position = owned[0];
        velocity = owned[1];
        radius = owned[2];
        key = owned[3];
        uncertainty = owned[4];
        reciprocates = owned[5];
    }
    if (read_vec2(position, "neighbor position", index, &n->x, &n->y) < 0
            || read_vec2(velocity, "neighbor velocity", index, &n->vx, &n->vy) < 0
            || arg_double(radius, "neighbor radius", &n->radius) < 0
            || arg_double(uncertainty, "neighbor uncertainty", &n->uncertainty) < 0
            || read_age_uncertainty(obj, n) < 0
            || (n->reciprocates = PyObject_IsTrue(reciprocates)) < 0) {
        goto done;
    }
    n->key = key;  /* borrowed: from the tuple, or kept alive by the object's attribute */
    status = 0;
done:
    for (int k = 0; k < 6; k++) {
        if (k == 3 && status == 0) {
            continue;  /* the key: released by the caller (see safety_half_planes) */
        }
        Py_XDECREF(owned[k]);
    }
    return status;
}

static int
read_safety_params(PyObject *const *args, SafetyParams *p)
{
    p->has_braking = args[4] != Py_None;
    p->braking = 0.0;
    return (arg_double(args[0], "time_step", &p->time_step) < 0
            || arg_double(args[1], "horizon", &p->horizon) < 0
            || arg_double(args[2], "tracking_error", &p->tracking_error) < 0
            || arg_double(args[3], "max_speed", &p->max_speed) < 0
            || (p->has_braking && arg_double(args[4], "braking_accel", &p->braking) < 0))
        ? -1 : 0;
}

/* The robot itself as the hard layer grows it (SafetyFilter.half_planes): its true
   radius, its safety radius, its uncertainty, the part of that which comes of age and
   the part that is its localization's. */
typedef struct {
    double radius, safety, uncertainty, age, localization;
} SafetyOwn;

static int
read_safety_own(const SafetyParams *p, PyObject *const *args, SafetyOwn *o)
{
    double uncertainty, localization;
    if (arg_double(args[0], "radius", &o->radius) < 0
            || arg_double(args[1], "own_uncertainty", &uncertainty) < 0
            || arg_double(args[2], "own_localization", &localization) < 0) {
        return -1;
    }
    o->uncertainty = py_max(uncertainty, 0.0);
    o->localization = py_min(py_max(localization, 0.0), o->uncertainty);
    o->age = o->uncertainty - o->localization;
    o->safety = safety_radius(p, o->radius);
    return 0;
}

/* SafetyFilter.pair_distances: how far apart the hard layer keeps the centres */
static double
pair_distance(const SafetyParams *p, const SafetyOwn *o, const SafetyNeighbor *n)
{
    double uncertainty = py_max(n->uncertainty, 0.0);
    double localization = py_max(uncertainty - py_max(n->age_uncertainty, 0.0), 0.0);
    return o->safety + o->age + safety_radius(p, n->radius) + (uncertainty - localization)
        + py_hypot(o->localization, localization);
}

PyDoc_STRVAR(within_one_step_doc,
"within_one_step(time_step, horizon, tracking_error, max_speed, braking_accel,\n"
"                position, velocity, own, candidates) -> list\n\n"
"The candidates (Neighbor objects) close enough that the pair could meet before both\n"
"have stopped: see orca_ros.core.robot.safety_filter.SafetyFilter.within_one_step.\n"
"``own``: the robot's safety radius and own uncertainty; braking_accel may be None.");

static PyObject *
py_within_one_step(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    double px, py, vx, vy, own;
    if (check_nargs("within_one_step", nargs, 9) < 0 || read_safety_params(args, &p) < 0
            || read_vec2(args[5], "position", -1, &px, &py) < 0
            || read_vec2(args[6], "velocity", -1, &vx, &vy) < 0
            || arg_double(args[7], "own", &own) < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[8], "candidates");
    if (fast == NULL) {
        return NULL;
    }
    PyObject *close = PyList_New(0);
    if (close == NULL) {
        Py_DECREF(fast);
        return NULL;
    }
    double travel = 2.0 * p.max_speed * p.horizon;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < count; k++) {
        SafetyNeighbor n;
        if (read_safety_neighbor(items[k], &n, k, 0) < 0) {
            Py_DECREF(close);
            Py_DECREF(fast);
            return NULL;
        }
        double rx = n.x - px, ry = n.y - py;
        double distance = py_hypot(rx, ry);
        double nx = 1.0, ny = 0.0;
        if (distance > SAFETY_TIE_EPSILON) {
            nx = rx / distance;
            ny = ry / distance;
        }
        double mine = closing_distance(&p, vx, vy, nx, ny);
        double theirs = closing_distance(&p, n.vx, n.vy, -nx, -ny);
        /* each keeps half the gap: either one's braking can bind */
        double braking = n.reciprocates ? 2.0 * py_max(mine, theirs) : mine + theirs;
        double reach = own + safety_radius(&p, n.radius) + n.uncertainty
            + py_max(travel, braking);
        if (!n.reciprocates) {
            reach += py_hypot(n.vx, n.vy) * p.horizon;
        }
        if (distance < reach && PyList_Append(close, items[k]) < 0) {
            Py_DECREF(close);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    return close;
}

PyDoc_STRVAR(safety_half_planes_doc,
"safety_half_planes(time_step, horizon, tracking_error, max_speed, braking_accel,\n"
"                   position, radius, own_uncertainty, own_localization, drift, key,\n"
"                   close, edges) -> (half_planes, inside)\n\n"
"The hard one-step half-planes against every visible wall (ObstacleVertex objects), then\n"
"every close neighbour (Neighbor objects), and those of them whose wall or robot is\n"
"nearer than the safety distance: see\n"
"orca_ros.core.robot.safety_filter.SafetyFilter.half_planes.");

static PyObject *
py_safety_half_planes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    SafetyOwn o;
    double px, py, drift;
    if (check_nargs("safety_half_planes", nargs, 13) < 0 || read_safety_params(args, &p) < 0
            || read_vec2(args[5], "position", -1, &px, &py) < 0
            || read_safety_own(&p, args + 6, &o) < 0
            || arg_double(args[9], "drift", &drift) < 0) {
        return NULL;
    }
    PyObject *key = args[10];
    PyObject *close_fast = NULL, *edges_fast = NULL, *lines = NULL, *inside = NULL,
        *line_obj = NULL, *result = NULL;
    if ((close_fast = as_fast_sequence(args[11], "close")) == NULL
            || (edges_fast = as_fast_sequence(args[12], "edges")) == NULL
            || (lines = PyList_New(0)) == NULL || (inside = PyList_New(0)) == NULL) {
        goto done;
    }
    /* walls: the whole own uncertainty and the drift grow the disc */
    double grown = o.uncertainty + drift;
    double wall_radius = o.safety + grown, wall_contact = o.radius + grown;
    Py_ssize_t num_edges = PySequence_Fast_GET_SIZE(edges_fast);
    PyObject **edge_items = PySequence_Fast_ITEMS(edges_fast);
    for (Py_ssize_t k = 0; k < num_edges; k++) {
        Edge edge;
        Line line;
        if (read_edge(edge_items[k], &edge, 1) < 0) {
            goto done;
        }
        int found = obstacle_safety_line(&p, px, py, wall_radius, &edge, 1, wall_contact,
                                         &line);
        if (found < 0) {
            goto done;
        }
        if (!found) {
            continue;
        }
        if ((line_obj = new_half_plane(&line)) == NULL || PyList_Append(lines, line_obj) < 0
                || (edge_distance(px, py, &edge) < wall_radius
                    && PyList_Append(inside, line_obj) < 0)) {
            goto done;
        }
        Py_CLEAR(line_obj);
    }
    Py_ssize_t num_close = PySequence_Fast_GET_SIZE(close_fast);
    PyObject **items = PySequence_Fast_ITEMS(close_fast);
    for (Py_ssize_t k = 0; k < num_close; k++) {
        SafetyNeighbor n;
        Line line;
        if (read_safety_neighbor(items[k], &n, k, 1) < 0) {
            goto done;
        }
        int before = PyObject_RichCompareBool(key, n.key, Py_LT);
        if (!(PyTuple_Check(items[k]) && PyTuple_GET_SIZE(items[k]) >= 6)) {
            Py_DECREF(n.key);  /* read as an attribute: a new reference */
        }
        if (before < 0) {
            goto done;
        }
        double rx = n.x - px, ry = n.y - py;
        double combined = pair_distance(&p, &o, &n);
        safety_line(&p, rx, ry, combined, before ? 1.0 : -1.0, 0.0, 1, o.radius + n.radius,
                    n.reciprocates, n.vx, n.vy, &line);
        if ((line_obj = new_half_plane(&line)) == NULL || PyList_Append(lines, line_obj) < 0
                || (py_hypot(rx, ry) < combined && PyList_Append(inside, line_obj) < 0)) {
            goto done;
        }
        Py_CLEAR(line_obj);
    }
    result = PyTuple_Pack(2, lines, inside);
done:
    Py_XDECREF(line_obj);
    Py_XDECREF(lines);
    Py_XDECREF(inside);
    Py_XDECREF(close_fast);
    Py_XDECREF(edges_fast);
    return result;
}

PyDoc_STRVAR(pair_distances_doc,
"pair_distances(time_step, horizon, tracking_error, max_speed, braking_accel,\n"
"               radius, own_uncertainty, own_localization, neighbors) -> list\n\n"
"How far apart the hard layer keeps the robot's centre from each neighbour's: see\n"
"orca_ros.core.robot.safety_filter.SafetyFilter.pair_distances.");

static PyObject *
py_pair_distances(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    SafetyOwn o;
    if (check_nargs("pair_distances", nargs, 9) < 0 || read_safety_params(args, &p) < 0
            || read_safety_own(&p, args + 5, &o) < 0) {
        return NULL;
    }
    PyObject *fast = as_fast_sequence(args[8], "neighbors");
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    PyObject **items = PySequence_Fast_ITEMS(fast);
    PyObject *result = PyList_New(count);
    for (Py_ssize_t k = 0; result != NULL && k < count; k++) {
        SafetyNeighbor n;
        PyObject *distance;
        if (read_safety_neighbor(items[k], &n, k, 0) < 0
                || (distance = PyFloat_FromDouble(pair_distance(&p, &o, &n))) == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, k, distance);
    }
    Py_DECREF(fast);
    return result;
}

/* The braking and horizon arguments of the single half-plane functions: None for
   either as in Python (no braking; a horizon of one time step). */
static int
single_params(PyObject *time_step, PyObject *braking, PyObject *horizon, SafetyParams *p)
{
    p->has_braking = braking != Py_None;
    p->braking = 0.0;
    p->tracking_error = 0.0;
    p->max_speed = 0.0;
    if (arg_double(time_step, "time_step", &p->time_step) < 0
            || (p->has_braking && arg_double(braking, "braking_accel", &p->braking) < 0)) {
        return -1;
    }
    if (horizon == Py_None) {
        p->horizon = p->time_step;
        return 0;
    }
    return arg_double(horizon, "horizon", &p->horizon);
}

PyDoc_STRVAR(one_step_safety_half_plane_doc,
"one_step_safety_half_plane(other_position_rel, combined_radius, time_step,\n"
"                           tie_direction, braking_accel, contact_radius, horizon,\n"
"                           other_velocity) -> HalfPlane\n\n"
"See orca_ros.core.robot.safety_filter.one_step_safety_half_plane (None as there).");

static PyObject *
py_one_step_safety_half_plane(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    double rx, ry, combined, tx, ty, contact = 0.0, ovx = 0.0, ovy = 0.0;
    int has_contact, reciprocates;
    if (check_nargs("one_step_safety_half_plane", nargs, 8) < 0
            || read_vec2(args[0], "other_position_rel", -1, &rx, &ry) < 0
            || arg_double(args[1], "combined_radius", &combined) < 0
            || single_params(args[2], args[4], args[6], &p) < 0
            || read_vec2(args[3], "tie_direction", -1, &tx, &ty) < 0) {
        return NULL;
    }
    has_contact = args[5] != Py_None;
    reciprocates = args[7] == Py_None;
    if ((has_contact && arg_double(args[5], "contact_radius", &contact) < 0)
            || (!reciprocates && read_vec2(args[7], "other_velocity", -1, &ovx, &ovy) < 0)) {
        return NULL;
    }
    Line line;
    safety_line(&p, rx, ry, combined, tx, ty, has_contact, contact, reciprocates, ovx, ovy,
                &line);
    return new_half_plane(&line);
}

PyDoc_STRVAR(one_step_obstacle_half_plane_doc,
"one_step_obstacle_half_plane(position, radius, edge, time_step, braking_accel,\n"
"                             contact_radius, horizon) -> HalfPlane or None\n\n"
"See orca_ros.core.robot.safety_filter.one_step_obstacle_half_plane (None as there).");

static PyObject *
py_one_step_obstacle_half_plane(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    double px, py, radius, contact = 0.0;
    Edge edge;
    if (check_nargs("one_step_obstacle_half_plane", nargs, 7) < 0
            || read_vec2(args[0], "position", -1, &px, &py) < 0
            || arg_double(args[1], "radius", &radius) < 0
            || single_params(args[3], args[4], args[6], &p) < 0
            || (args[5] != Py_None && arg_double(args[5], "contact_radius", &contact) < 0)
            || read_edge(args[2], &edge, 1) < 0) {
        return NULL;
    }
    Line line;
    int found = obstacle_safety_line(&p, px, py, radius, &edge, args[5] != Py_None, contact,
                                     &line);
    if (found < 0) {
        return NULL;
    }
    if (!found) {
        Py_RETURN_NONE;
    }
    return new_half_plane(&line);
}

PyDoc_STRVAR(closing_distance_doc,
"closing_distance(time_step, horizon, tracking_error, max_speed, braking_accel,\n"
"                 velocity, towards) -> float\n\n"
"See orca_ros.core.robot.safety_filter.SafetyFilter.closing_distance.");

static PyObject *
py_closing_distance(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    SafetyParams p;
    double vx, vy, tx, ty;
    if (check_nargs("closing_distance", nargs, 7) < 0 || read_safety_params(args, &p) < 0
            || read_vec2(args[5], "velocity", -1, &vx, &vy) < 0
            || read_vec2(args[6], "towards", -1, &tx, &ty) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(closing_distance(&p, vx, vy, tx, ty));
}

PyDoc_STRVAR(python_hypot_doc,
"python_hypot(x, y) -> float\n\n"
"math.hypot(x, y) as this module computes it (the tests hold it to math.hypot).");

static PyObject *
py_python_hypot(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x, y;
    if (check_nargs("python_hypot", nargs, 2) < 0 || arg_double(args[0], "x", &x) < 0
            || arg_double(args[1], "y", &y) < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(py_hypot(x, y));
}


/* ------------------------------------------------------------------------------------ */
/* A unicycle's tracking (orca_ros/core/robot/tracking.py: kinematic_half_planes,
   unicycle_command and its turn-rate cut _stoppable), in the order of operations of the
   Python reference in test/helpers/tracking_reference.py. */

/* geometry.frames.wrap_angle: an angle in (-pi, pi] */
static double
wrap_angle(double angle)
{
    double wrapped = fmod(angle + M_PI, 2.0 * M_PI);
    if (wrapped <= 0.0) {
        wrapped += 2.0 * M_PI;
    }
    return wrapped - M_PI;
}

PyDoc_STRVAR(kinematic_half_planes_doc,
"kinematic_half_planes(heading, linear_speed, lateral_error, max_linear_accel,\n"
"                      max_linear_speed, dt, direction, reverse_speed)\n"
"    -> list of 4 HalfPlanes\n\n"
"orca_ros.core.robot.tracking.kinematic_half_planes with the limits' fields given.");

static PyObject *
py_kinematic_half_planes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double heading = 0.0, speed = 0.0, lateral_error = 0.0, accel = 0.0, top = 0.0;
    double dt = 0.0, reverse_speed = 0.0;
    Py_ssize_t direction = 1;
    if (check_nargs("kinematic_half_planes", nargs, 8) < 0
            || arg_double(args[0], "heading", &heading) < 0
            || arg_double(args[1], "linear_speed", &speed) < 0
            || arg_double(args[2], "lateral_error", &lateral_error) < 0
            || arg_double(args[3], "max_linear_accel", &accel) < 0
            || arg_double(args[4], "max_linear_speed", &top) < 0
            || arg_double(args[5], "dt", &dt) < 0
            || arg_index(args[6], "direction", &direction) < 0
            || arg_double(args[7], "reverse_speed", &reverse_speed) < 0) {
        return NULL;
    }
    if (dt == 0.0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero (dt is 0)");
        return NULL;
    }
    double hx = cos(heading), hy = sin(heading);
    double lateral = lateral_error / dt;
    double change = accel * dt;
    double lowest, highest;
    if (direction < 0) {
        lowest = py_max(-reverse_speed, speed - change);
        highest = py_min(0.0, speed + change);
        if (lowest > highest) {  /* still moving forward: brake as hard as it can */
            lowest = highest = speed - change;
        }
    } else {
        lowest = py_max(0.0, speed - change);
        highest = py_min(top, speed + change);
        if (lowest > highest) {  /* still moving in reverse: brake as hard as it can */
            lowest = highest = speed + change;
        }
    }
    /* n = (-hy, hx) is the heading's left normal. */
    Line lines[4] = {
        {-hy * lateral, hx * lateral, -hx, -hy},     /* u . n <= lateral */
        {hy * lateral, -hx * lateral, hx, hy},       /* u . n >= -lateral */
        {hx * lowest, hy * lowest, hy, -hx},         /* u . h >= lowest */
        {hx * highest, hy * highest, -hy, hx},       /* u . h <= highest */
    };
    PyObject *result = PyList_New(4);
    if (result == NULL) {
        return NULL;
    }
    for (int k = 0; k < 4; k++) {
        PyObject *line = new_half_plane(&lines[k]);
        if (line == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, k, line);
    }
    return result;
}

PyDoc_STRVAR(unicycle_command_doc,
"unicycle_command(planned_x, planned_y, free_x, free_y, heading, v_now, omega_now,\n"
"                 max_linear_speed, max_linear_accel, max_angular_speed,\n"
"                 max_angular_accel, dt, heading_time_constant, direction,\n"
"                 reverse_speed) -> (v, omega)\n\n"
"orca_ros.core.robot.tracking.unicycle_command with its pairs and the limits' fields\n"
"given one by one.");

static PyObject *
py_unicycle_command(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *names[15] = {
        "planned_x", "planned_y", "free_x", "free_y", "heading", "v_now", "omega_now",
        "max_linear_speed", "max_linear_accel", "max_angular_speed", "max_angular_accel",
        "dt", "heading_time_constant", "direction", "reverse_speed"};
    double x[15];
    if (check_nargs("unicycle_command", nargs, 15) < 0) {
        return NULL;
    }
    for (int k = 0; k < 15; k++) {
        if (arg_double(args[k], names[k], &x[k]) < 0) {
            return NULL;
        }
    }
    double planned_x = x[0], planned_y = x[1], free_x = x[2], free_y = x[3];
    double heading = x[4], v_now = x[5], omega_now = x[6], top = x[7];
    double linear_accel = x[8], max_turn = x[9], alpha = x[10], dt = x[11];
    double time_constant = x[12], direction = x[13], reverse_speed = x[14];
    if (dt == 0.0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero (dt is 0)");
        return NULL;
    }
    double hx = cos(heading), hy = sin(heading);
    double v = planned_x * hx + planned_y * hy;
    double lowest = direction > 0 ? 0.0 : -reverse_speed;
    double highest = direction > 0 ? top : 0.0;
    v = py_min(py_max(v, lowest), highest);
    /* The acceleration limit wins: a robot still moving the other way brakes. */
    v = py_min(py_max(v, v_now - linear_accel * dt), v_now + linear_accel * dt);
    double omega = 0.0;
    if (free_x * free_x + free_y * free_y > 1e-12) {
        double facing = direction > 0 ? heading : heading + M_PI;
        double error = wrap_angle(atan2(free_y, free_x) - facing);
        omega = error / py_max(dt, time_constant);
        /* _stoppable: a rate braking at alpha still stops by the heading wanted */
        double reach = fabs(error);
        double limit = py_max(braking_speed(reach, alpha, dt, dt),
                              py_min(reach / dt, alpha * dt));
        omega = py_max(-limit, py_min(omega, limit));
    }
    double step = alpha * dt;
    omega = py_min(py_max(omega, omega_now - step), omega_now + step);
    omega = py_min(py_max(omega, -max_turn), max_turn);
    return Py_BuildValue("(dd)", v, omega);
}


/* ------------------------------------------------------------------------------------ */
/* ORCA's agent half-planes of many robots at once (the world's batch)                   */

/* A read-only float64 buffer of ``count`` numbers (get_buffer, pyargs.h). */
static int
get_doubles(PyObject *obj, const char *name, Py_ssize_t count, Py_buffer *view)
{
    return get_buffer(obj, name, count, 0, view);
}

PyDoc_STRVAR(agent_orca_half_plane_rows_doc,
"agent_orca_half_plane_rows(velocity, other_position_rel, other_velocity,\n"
"                           combined_radius, inv_time_horizon, inv_time_step, n, k)\n"
"    -> list of n lists of k HalfPlanes\n\n"
"agent_orca_half_plane for n robots' k neighbours each (share 1/2), from float64\n"
"C-contiguous arrays of shapes (n, 2), (n, k, 2), (n, k, 2), (n, k), (n,): see\n"
"orca_ros.core.orca.orca2d.agent_orca_half_plane_rows.");

static PyObject *
py_agent_orca_half_plane_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double inv_time_step;
    Py_ssize_t n, k;
    if (check_nargs("agent_orca_half_plane_rows", nargs, 8) < 0
            || arg_double(args[5], "inv_time_step", &inv_time_step) < 0
            || arg_index(args[6], "n", &n) < 0 || arg_index(args[7], "k", &k) < 0) {
        return NULL;
    }
    if (n < 0 || k < 0) {
        PyErr_SetString(PyExc_ValueError, "n and k must be >= 0");
        return NULL;
    }
    const char *names[5] = {"velocity", "other_position_rel", "other_velocity",
                            "combined_radius", "inv_time_horizon"};
    Py_ssize_t sizes[5] = {n * 2, n * k * 2, n * k * 2, n * k, n};
    Py_buffer views[5];
    int got = 0;
    PyObject *rows = NULL;
    for (; got < 5; got++) {
        if (get_doubles(args[got], names[got], sizes[got], &views[got]) < 0) {
            goto done;
        }
    }
    const double *vel = views[0].buf, *rel = views[1].buf, *other = views[2].buf,
        *combined = views[3].buf, *inv_tau = views[4].buf;
    if ((rows = PyList_New(n)) == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_New(k);
        if (row == NULL) {
            Py_CLEAR(rows);
            goto done;
        }
        PyList_SET_ITEM(rows, i, row);
        for (Py_ssize_t j = 0; j < k; j++) {
            Py_ssize_t pair = i * k + j;
            Line line;
            agent_line(vel[2 * i], vel[2 * i + 1], rel[2 * pair], rel[2 * pair + 1],
                       other[2 * pair], other[2 * pair + 1], combined[pair], inv_tau[i],
                       inv_time_step, 0.5, &line);
            PyObject *item = new_half_plane(&line);
            if (item == NULL) {
                Py_CLEAR(rows);
                goto done;
            }
            PyList_SET_ITEM(row, j, item);
        }
    }
done:
    for (int v = 0; v < got; v++) {
        PyBuffer_Release(&views[v]);
    }
    return rows;
}

/* ------------------------------------------------------------------------------------ */
/* Distances to wall segments (orca_ros.core.geometry.segment_index), as its numpy does   */

/* The float64 buffers of a query: ``count`` arguments, their sizes, the last one
   written into; none held on an error. */
static int
get_query_buffers(PyObject *const *args, const char **names, const Py_ssize_t *sizes,
                  int count, Py_buffer *views)
{
    for (int got = 0; got < count; got++) {
        if (get_buffer(args[got], names[got], sizes[got], got == count - 1,
                       &views[got]) < 0) {
            for (int v = 0; v < got; v++) {
                PyBuffer_Release(&views[v]);
            }
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(segment_min_distances_doc,
"segment_min_distances(p, q, a, b, n, e, out) -> None\n\n"
"out[k] = the least distance between segment p[k]-q[k] and the segments a[i]-b[i]\n"
"(float64 C-contiguous arrays of shapes (n, 2), (n, 2), (e, 2), (e, 2), (n,); e >= 1):\n"
"segment_index.segments_min_distance(p, q, a, b).min(axis=1), number for number (with\n"
"q = p, each point's distance to the nearest segment: point_segment_distance's).");

static PyObject *
py_segment_min_distances(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n, e;
    if (check_nargs("segment_min_distances", nargs, 7) < 0
            || arg_index(args[4], "n", &n) < 0 || arg_index(args[5], "e", &e) < 0) {
        return NULL;
    }
    if (n < 0 || e < 1) {
        PyErr_SetString(PyExc_ValueError, "n must be >= 0 and e >= 1");
        return NULL;
    }
    PyObject *buffers[5] = {args[0], args[1], args[2], args[3], args[6]};
    const char *names[5] = {"p", "q", "a", "b", "out"};
    Py_ssize_t sizes[5] = {n * 2, n * 2, e * 2, e * 2, n};
    Py_buffer views[5];
    if (get_query_buffers(buffers, names, sizes, 5, views) < 0) {
        return NULL;
    }
    const double *p = views[0].buf, *q = views[1].buf, *a = views[2].buf, *b = views[3].buf;
    double *out = views[4].buf;
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = segment_min_distance(p[2 * k], p[2 * k + 1], q[2 * k], q[2 * k + 1], a, b, e);
    }
    for (int v = 0; v < 5; v++) {
        PyBuffer_Release(&views[v]);
    }
    Py_RETURN_NONE;
}


/* ------------------------------------------------------------------------------------ */
/* Neighbour perception (orca_ros/core/robot/perception.py: perceive_neighbor,
   position_uncertainty, select_neighbors, and the reach test below) over readings' rows
   (orca_ros/core/robot/readings.py), operation for operation as the Python reference
   (test/helpers/perception_reference.py), so that every number is the same to the last
   bit (test/unit/robot/test_perception_rows.py).
   The reach test: carried forward, a neighbour at distance d, moving at speed s, read
   age ago, is at most s age further on with at most (max_speed + s) age of
   uncertainty, so its distance less its uncertainty is at least
   d - (max_speed + 2 s) age; where that is neighbor_dist or more, select_neighbors
   cannot keep it, and the row is passed over before it is perceived. */

#define ROW_STAMP 0
#define ROW_X 2
#define ROW_Y 3
#define ROW_VX 4
#define ROW_VY 5
#define ROW_UNCERTAINTY 8
#define ROW_ANNOUNCED 9
#define ROW_COLUMNS 10

typedef struct {
    Py_ssize_t row;
    double x, y, uncertainty, added, distance;
    int selected;
    PyObject *name;                   /* borrowed from the caller's names */
} Perceived;

/* Selected first, nearest first, equal distances by name (select_neighbors' order);
   then the rest in row order. */
static int
compare_perceived(const void *a, const void *b)
{
    const Perceived *p = a, *q = b;
    if (p->selected != q->selected) {
        return p->selected ? -1 : 1;
    }
    if (!p->selected) {
        return (p->row > q->row) - (p->row < q->row);
    }
    if (p->distance < q->distance) {
        return -1;
    }
    if (p->distance > q->distance) {
        return 1;
    }
    int order = PyUnicode_Compare(p->name, q->name);
    if (order == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        order = 0;
    }
    return order != 0 ? order : (p->row > q->row) - (p->row < q->row);
}

PyDoc_STRVAR(perceive_rows_doc,
"perceive_rows(data, names, x, y, now, lag, max_speed, max_accel, extrapolate,\n"
"              neighbor_dist, max_uncertainty, keep) -> list of tuples\n\n"
"The neighbours of a robot at (x, y) from their readings' rows (data: float64\n"
"C-contiguous, len(names) rows of readings.COLUMNS), as perceived when the command\n"
"acts (now + lag): each row that the reach test does not pass over (nor\n"
"any row whose byte in keep is non-zero; keep: bytes of len(names), or None) as\n"
"(row, stamp, x, y, vx, vy, uncertainty, age_uncertainty, selected, announced):\n"
"carried forward "
"by perception.perceive_neighbor (its own uncertainty capped at max_uncertainty),\n"
"selected where select_neighbors keeps it; the selected first, in its order.");

static PyObject *
py_perceive_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x = 0.0, y = 0.0, now = 0.0, lag = 0.0, max_speed = 0.0, max_accel = 0.0;
    double extrapolate = 0.0, neighbor_dist = 0.0, max_unc = 0.0;
    if (check_nargs("perceive_rows", nargs, 12) < 0
            || arg_double(args[2], "x", &x) < 0 || arg_double(args[3], "y", &y) < 0
            || arg_double(args[4], "now", &now) < 0 || arg_double(args[5], "lag", &lag) < 0
            || arg_double(args[6], "max_speed", &max_speed) < 0
            || arg_double(args[7], "max_accel", &max_accel) < 0
            || arg_double(args[8], "extrapolate", &extrapolate) < 0
            || arg_double(args[9], "neighbor_dist", &neighbor_dist) < 0
            || arg_double(args[10], "max_uncertainty", &max_unc) < 0) {
        return NULL;
    }
    PyObject *names = args[1], *keep_obj = args[11];
    if (!PyList_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "names must be a list of str");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(names);
    const char *keep = NULL;
    if (keep_obj != Py_None) {
        if (!PyBytes_Check(keep_obj) || PyBytes_GET_SIZE(keep_obj) != count) {
            PyErr_SetString(PyExc_TypeError, "keep must be None or bytes, one per row");
            return NULL;
        }
        keep = PyBytes_AS_STRING(keep_obj);
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyUnicode_Check(PyList_GET_ITEM(names, k))) {
            PyErr_SetString(PyExc_TypeError, "names must be a list of str");
            return NULL;
        }
    }
    Py_buffer view;
    if (get_doubles(args[0], "data", count * ROW_COLUMNS, &view) < 0) {
        return NULL;
    }
    const double *data = view.buf;
    PyObject *result = NULL;
    Perceived *seen = PyMem_Malloc((count > 0 ? count : 1) * sizeof(Perceived));
    if (seen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        const double *row = data + k * ROW_COLUMNS;
        double sx = row[ROW_X], sy = row[ROW_Y], vx = row[ROW_VX], vy = row[ROW_VY];
        double age = py_max(0.0, now - row[ROW_STAMP]) + lag;
        if (!(keep != NULL && keep[k])) {  /* the reach test */
            /* First with sqrt, which may differ from Python's hypot in the last bit:
               passed over at once where a margin far above that leaves no doubt (most
               of a large fleet), else tested as Python tests it. */
            double rough_distance = sqrt((sx - x) * (sx - x) + (sy - y) * (sy - y));
            double rough_reach = (max_speed + 2.0 * sqrt(vx * vx + vy * vy)) * py_max(age, 0.0);
            if (isfinite(rough_distance) && isfinite(rough_reach)
                    && rough_distance - rough_reach
                       >= neighbor_dist + 1e-9 * (rough_distance + rough_reach + neighbor_dist)
                          + 1e-150) {
                continue;
            }
            double distance = py_hypot(sx - x, sy - y);
            if (distance - (max_speed + 2.0 * py_hypot(vx, vy)) * py_max(age, 0.0)
                    >= neighbor_dist) {
                continue;
            }
        }
        double speed = py_hypot(vx, vy);
        /* perceive_neighbor, position_uncertainty */
        age = py_max(age, 0.0);
        double t = py_min(age, extrapolate);
        double t_u = py_min(py_max(t, 0.0), age);
        double drift = py_min(0.5 * max_accel * t_u * t_u, (max_speed + speed) * t_u);
        double added = drift + max_speed * (age - t_u);
        Perceived *p = &seen[n++];
        p->row = k;
        p->x = sx + vx * t;
        p->y = sy + vy * t;
        p->added = added;
        p->uncertainty = py_min(row[ROW_UNCERTAINTY], max_unc) + added;
        p->name = PyList_GET_ITEM(names, k);
        /* select_neighbors */
        p->distance = py_hypot(p->x - x, p->y - y);
        p->selected = p->distance - p->uncertainty < neighbor_dist;
    }
    qsort(seen, n, sizeof(Perceived), compare_perceived);
    if ((result = PyList_New(n)) == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const Perceived *p = &seen[i];
        const double *row = data + p->row * ROW_COLUMNS;
        double values[7] = {row[ROW_STAMP], p->x, p->y, row[ROW_VX], row[ROW_VY],
                            p->uncertainty, p->added};
        PyObject *item = PyTuple_New(10);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
        PyObject *number = PyLong_FromSsize_t(p->row);
        if (number == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(item, 0, number);
        for (int j = 0; j < 7; j++) {
            if ((number = PyFloat_FromDouble(values[j])) == NULL) {
                Py_CLEAR(result);
                goto done;
            }
            PyTuple_SET_ITEM(item, j + 1, number);
        }
        PyTuple_SET_ITEM(item, 8, Py_NewRef(p->selected ? Py_True : Py_False));
        PyTuple_SET_ITEM(item, 9, Py_NewRef(row[ROW_ANNOUNCED] != 0.0 ? Py_True : Py_False));
    }
done:
    PyMem_Free(seen);
    PyBuffer_Release(&view);
    return result;
}


/* --- the neighbours as the cycle keeps them and as the method sees them ----------------
 *
 * After perceive_rows: which rows are new readings (observed_rows, for the reciprocity
 * monitor), the rows as Neighbor tuples (make_neighbors, RobotCycle._perceived_neighbors)
 * and the Neighbors as NeighborView tuples (neighbor_views,
 * RobotController.neighbor_views). Their Python references are in
 * test/helpers/perception_reference.py; the numbers are Python's to the last bit. */

/* An instance of the tuple subclass `type` (a NamedTuple) holding `items` (stolen), made
   as tuple.__new__ makes one, without the Python-level __new__. */
static PyObject *
new_named(PyTypeObject *type, Py_ssize_t count, PyObject **items)
{
    PyObject *result = type->tp_alloc(type, count);
    if (result == NULL) {
        for (Py_ssize_t k = 0; k < count; k++) {
            Py_XDECREF(items[k]);
        }
        return NULL;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        if (items[k] == NULL) {
            for (Py_ssize_t j = k + 1; j < count; j++) {
                Py_XDECREF(items[j]);
            }
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, k, items[k]);
    }
    return result;
}

static int
arg_tuple_type(PyObject *obj, const char *name, PyTypeObject **out)
{
    if (!PyType_Check(obj) || !PyType_IsSubtype((PyTypeObject *)obj, &PyTuple_Type)) {
        PyErr_Format(PyExc_TypeError, "%s must be a subclass of tuple", name);
        return -1;
    }
    *out = (PyTypeObject *)obj;
    return 0;
}

/* One row of perceive_rows' list: (row, stamp, x, y, vx, vy, uncertainty, added,
   selected, announced); its name from names. */
static int
passed_row(PyObject *item, PyObject *names, Py_ssize_t *row, PyObject **name)
{
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 10) {
        PyErr_SetString(PyExc_TypeError, "passed must hold perceive_rows' tuples");
        return -1;
    }
    *row = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
    if (*row == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (*row < 0 || *row >= PyList_GET_SIZE(names)) {
        PyErr_SetString(PyExc_IndexError, "a passed row is not among names");
        return -1;
    }
    *name = PyList_GET_ITEM(names, *row);
    return 0;
}

PyDoc_STRVAR(observed_rows_doc,
"observed_rows(passed, names, observed, waiting) -> list of (name, stamp, (vx, vy))\n\n"
"Of perceive_rows' list, the readings not seen before: each row whose stamp differs\n"
"from observed[name] is written into observed (a dict of name to stamp); of those, the\n"
"ones whose name is in waiting (the reciprocity monitor's) are returned, in passed's\n"
"order, for ReciprocityMonitor.observe.");

static PyObject *
py_observed_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("observed_rows", nargs, 4) < 0) {
        return NULL;
    }
    PyObject *passed = args[0], *names = args[1], *observed = args[2], *waiting = args[3];
    if (!PyList_Check(passed) || !PyList_Check(names) || !PyDict_Check(observed)) {
        PyErr_SetString(PyExc_TypeError, "passed and names must be lists, observed a dict");
        return NULL;
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(passed); i++) {
        PyObject *item = PyList_GET_ITEM(passed, i), *name;
        Py_ssize_t row;
        if (passed_row(item, names, &row, &name) < 0) {
            goto fail;
        }
        PyObject *stamp = PyTuple_GET_ITEM(item, 1);
        PyObject *known = PyDict_GetItemWithError(observed, name);  /* borrowed */
        if (known == NULL && PyErr_Occurred()) {
            goto fail;
        }
        if (known != NULL) {
            int differs = PyObject_RichCompareBool(known, stamp, Py_NE);
            if (differs < 0) {
                goto fail;
            }
            if (!differs) {
                continue;
            }
        }
        if (PyDict_SetItem(observed, name, stamp) < 0) {
            goto fail;
        }
        int awaited = PyDict_Check(waiting) ? PyDict_Contains(waiting, name)
            : PySequence_Contains(waiting, name);
        if (awaited < 0) {
            goto fail;
        }
        if (awaited) {
            PyObject *velocity = PyTuple_Pack(2, PyTuple_GET_ITEM(item, 4),
                                              PyTuple_GET_ITEM(item, 5));
            PyObject *entry = velocity == NULL ? NULL : PyTuple_Pack(3, name, stamp, velocity);
            Py_XDECREF(velocity);
            if (entry == NULL || PyList_Append(result, entry) < 0) {
                Py_XDECREF(entry);
                goto fail;
            }
            Py_DECREF(entry);
        }
    }
    return result;
fail:
    Py_DECREF(result);
    return NULL;
}

PyDoc_STRVAR(make_neighbors_doc,
"make_neighbors(passed, names, keep, listed, heard, default_radius, refusing,\n"
"               unannounced, neighbor_type) -> list of Neighbor\n\n"
"perceive_rows' list as Neighbor tuples (neighbor_type), in its order: the selected\n"
"rows and, with keep (bytes, one per name, or None), the rows kept; each of radius\n"
"listed[name], else heard.get(name, default_radius) (NeighborRadii), reciprocating\n"
"unless its name is in refusing (a set) or it is neither announced nor taken to\n"
"reciprocate unannounced (unannounced).");

static PyObject *
py_make_neighbors(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyTypeObject *neighbor_type;
    if (check_nargs("make_neighbors", nargs, 9) < 0
            || arg_tuple_type(args[8], "neighbor_type", &neighbor_type) < 0) {
        return NULL;
    }
    PyObject *passed = args[0], *names = args[1], *keep_obj = args[2], *listed = args[3];
    PyObject *heard = args[4], *default_radius = args[5], *refusing = args[6];
    int unannounced = PyObject_IsTrue(args[7]);
    if (unannounced < 0) {
        return NULL;
    }
    if (!PyList_Check(passed) || !PyList_Check(names) || !PyDict_Check(listed)
            || !PyDict_Check(heard) || !PyAnySet_Check(refusing)) {
        PyErr_SetString(PyExc_TypeError,
                        "passed and names must be lists, listed and heard dicts, refusing a set");
        return NULL;
    }
    const char *keep = NULL;
    if (keep_obj != Py_None) {
        if (!PyBytes_Check(keep_obj) || PyBytes_GET_SIZE(keep_obj) != PyList_GET_SIZE(names)) {
            PyErr_SetString(PyExc_TypeError, "keep must be None or bytes, one per name");
            return NULL;
        }
        keep = PyBytes_AS_STRING(keep_obj);
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(passed); i++) {
        PyObject *item = PyList_GET_ITEM(passed, i), *name;
        Py_ssize_t row;
        if (passed_row(item, names, &row, &name) < 0) {
            goto fail;
        }
        int selected = PyObject_IsTrue(PyTuple_GET_ITEM(item, 8));
        int announced = PyObject_IsTrue(PyTuple_GET_ITEM(item, 9));
        if (selected < 0 || announced < 0) {
            goto fail;
        }
        if (!selected && !(keep != NULL && keep[row])) {
            continue;
        }
        PyObject *radius = PyDict_GetItemWithError(listed, name);  /* borrowed */
        if (radius == NULL && !PyErr_Occurred()) {
            radius = PyDict_GetItemWithError(heard, name);
        }
        if (radius == NULL) {
            if (PyErr_Occurred()) {
                goto fail;
            }
            radius = default_radius;
        }
        int refused = PySet_Contains(refusing, name);
        if (refused < 0) {
            goto fail;
        }
        PyObject *reciprocates = !refused && (announced || unannounced) ? Py_True : Py_False;
        PyObject *items[7] = {
            PyTuple_Pack(2, PyTuple_GET_ITEM(item, 2), PyTuple_GET_ITEM(item, 3)),
            PyTuple_Pack(2, PyTuple_GET_ITEM(item, 4), PyTuple_GET_ITEM(item, 5)),
            Py_NewRef(radius), Py_NewRef(name), Py_NewRef(PyTuple_GET_ITEM(item, 6)),
            Py_NewRef(reciprocates), Py_NewRef(PyTuple_GET_ITEM(item, 7))};
        PyObject *neighbor = new_named(neighbor_type, 7, items);
        if (neighbor == NULL || PyList_Append(result, neighbor) < 0) {
            Py_XDECREF(neighbor);
            goto fail;
        }
        Py_DECREF(neighbor);
    }
    return result;
fail:
    Py_DECREF(result);
    return NULL;
}

/* A pair of floats, (x, y), from a sequence of two numbers. */
static int
pair_of(PyObject *obj, double *x, double *y)
{
    PyObject *pair = PySequence_Fast(obj, "positions and velocities must be (x, y) pairs");
    if (pair == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(pair) != 2) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "positions and velocities must be (x, y) pairs");
        return -1;
    }
    *x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(pair, 0));
    *y = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(pair, 1));
    Py_DECREF(pair);
    return PyErr_Occurred() ? -1 : 0;
}

PyDoc_STRVAR(neighbor_views_doc,
"neighbor_views(neighbors, x, y, vx, vy, own_radius, radius, margin_ratio,\n"
"               tracking_error, margin_speed_ratio, max_speed, held, view_type)\n"
"    -> list of NeighborView\n\n"
"The Neighbor tuples as the method plans with them (RobotController.neighbor_views):\n"
"each radius as ControllerConfig.avoidance_radius makes it, less\n"
"pair_margin_shortfall at the pair's relative speed (margins held: held), plus its\n"
"planning uncertainty, at most half the free gap to the robot at (x, y) of\n"
"own_radius.");

static PyObject *
py_neighbor_views(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double x, y, vx, vy, own_radius, radius, margin_ratio, tracking_error, speed_ratio;
    double max_speed, held;
    PyTypeObject *view_type;
    if (check_nargs("neighbor_views", nargs, 13) < 0
            || arg_double(args[1], "x", &x) < 0 || arg_double(args[2], "y", &y) < 0
            || arg_double(args[3], "vx", &vx) < 0 || arg_double(args[4], "vy", &vy) < 0
            || arg_double(args[5], "own_radius", &own_radius) < 0
            || arg_double(args[6], "radius", &radius) < 0
            || arg_double(args[7], "margin_ratio", &margin_ratio) < 0
            || arg_double(args[8], "tracking_error", &tracking_error) < 0
            || arg_double(args[9], "margin_speed_ratio", &speed_ratio) < 0
            || arg_double(args[10], "max_speed", &max_speed) < 0
            || arg_double(args[11], "held", &held) < 0
            || arg_tuple_type(args[12], "view_type", &view_type) < 0) {
        return NULL;
    }
    PyObject *neighbors = PySequence_Fast(args[0], "neighbors must be a sequence");
    if (neighbors == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(neighbors);
    PyObject **items = PySequence_Fast_ITEMS(neighbors);
    PyObject *result = PyList_New(count);
    if (result == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *n = items[i];
        if (!PyTuple_Check(n) || PyTuple_GET_SIZE(n) < 7) {
            PyErr_SetString(PyExc_TypeError, "neighbors must be Neighbor tuples");
            goto fail;
        }
        PyObject *position = PyTuple_GET_ITEM(n, 0), *velocity = PyTuple_GET_ITEM(n, 1);
        double nx, ny, nvx, nvy;
        if (pair_of(position, &nx, &ny) < 0 || pair_of(velocity, &nvx, &nvy) < 0) {
            goto fail;
        }
        double n_radius = PyFloat_AsDouble(PyTuple_GET_ITEM(n, 2));
        double uncertainty = PyFloat_AsDouble(PyTuple_GET_ITEM(n, 4));
        double age_uncertainty = PyFloat_AsDouble(PyTuple_GET_ITEM(n, 6));
        int reciprocates = PyObject_IsTrue(PyTuple_GET_ITEM(n, 5));
        if (reciprocates < 0 || PyErr_Occurred()) {
            goto fail;
        }
        /* avoidance_radius(n.radius) - pair_margin_shortfall(radius, n.radius, |v - v_n|, held) */
        double view_radius = n_radius * (1.0 + margin_ratio) + tracking_error;
        double relative = py_hypot(vx - nvx, vy - nvy);
        double shortfall = 0.0;
        if (!(margin_ratio <= 0.0)) {
            double scale = speed_ratio <= 0.0 ? 1.0
                : py_min(1.0, relative / (speed_ratio * max_speed));
            shortfall = (1.0 - scale * held) * margin_ratio * (radius + n_radius);
        }
        view_radius -= shortfall;
        /* planning_uncertainty(n), at most half the free gap */
        double planned = reciprocates ? py_max(uncertainty - age_uncertainty, 0.0) : uncertainty;
        if (planned > 0.0) {
            double free = py_hypot(x - nx, y - ny) - own_radius - view_radius;
            view_radius += py_min(planned, 0.5 * py_max(free, 0.0));
        }
        PyObject *fields[5] = {
            Py_NewRef(position), Py_NewRef(velocity), PyFloat_FromDouble(view_radius),
            Py_NewRef(PyTuple_GET_ITEM(n, 3)), Py_NewRef(PyTuple_GET_ITEM(n, 5))};
        PyObject *view = new_named(view_type, 5, fields);
        if (view == NULL) {
            goto fail;
        }
        PyList_SET_ITEM(result, i, view);
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    Py_DECREF(neighbors);
    return result;
}

/* --- the reciprocity monitor's two per-period steps ------------------------------------
 *
 * perception.ReciprocityMonitor keeps its tables as Python dicts (by neighbour name):
 * pending, an expectation (stamp, half_plane, own_velocity, neighbor_velocity,
 * judge_after) each; history, a list of (stamp, violated) each, oldest first;
 * violations, the True ones in history; flagged_at, the stamp of the last flag. These
 * two functions are its expect and observe for a whole period's neighbours. Their
 * Python reference: test/helpers/perception_reference.py, ReciprocityMonitor. */

static int
float_item(PyObject *tuple, Py_ssize_t k, double *out)
{
    *out = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, k));
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int
expectation_of(PyObject *obj)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 5) {
        PyErr_SetString(PyExc_TypeError, "an expectation is (stamp, half_plane, own_velocity, "
                        "neighbor_velocity, judge_after)");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(reciprocity_expect_doc,
"reciprocity_expect(pending, window, neighbors, stamps, lines, own_velocity, now)\n\n"
"ReciprocityMonitor.expect for each Neighbor of neighbors with its half-plane of lines\n"
"(as many), its data's stamp stamps[key], built at now (None: at the stamp): a new\n"
"expectation in pending unless the one before still waits (built less than window s\n"
"after it could be judged).");

static PyObject *
py_reciprocity_expect(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double window, now = 0.0;
    if (check_nargs("reciprocity_expect", nargs, 7) < 0
            || arg_double(args[1], "window", &window) < 0
            || (args[6] != Py_None && arg_double(args[6], "now", &now) < 0)) {
        return NULL;
    }
    PyObject *pending = args[0], *stamps = args[3], *own_velocity = args[5];
    if (!PyDict_Check(pending) || !PyDict_Check(stamps)) {
        PyErr_SetString(PyExc_TypeError, "pending and stamps must be dicts");
        return NULL;
    }
    PyObject *neighbors = PySequence_Fast(args[2], "neighbors must be a sequence");
    if (neighbors == NULL) {
        return NULL;
    }
    PyObject *lines = PySequence_Fast(args[4], "lines must be a sequence");
    if (lines == NULL) {
        Py_DECREF(neighbors);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(neighbors);
    if (PySequence_Fast_GET_SIZE(lines) != count) {
        PyErr_SetString(PyExc_ValueError, "one half-plane per neighbour");
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *n = PySequence_Fast_GET_ITEM(neighbors, i);
        if (!PyTuple_Check(n) || PyTuple_GET_SIZE(n) < 4) {
            PyErr_SetString(PyExc_TypeError, "neighbors must be Neighbor tuples");
            goto done;
        }
        PyObject *name = PyTuple_GET_ITEM(n, 3);
        PyObject *stamp_obj = PyDict_GetItemWithError(stamps, name);  /* borrowed */
        if (stamp_obj == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetObject(PyExc_KeyError, name);
            }
            goto done;
        }
        double stamp = PyFloat_AsDouble(stamp_obj);
        if (stamp == -1.0 && PyErr_Occurred()) {
            goto done;
        }
        double built = args[6] == Py_None ? stamp : py_max(now, stamp);
        PyObject *before = PyDict_GetItemWithError(pending, name);  /* borrowed */
        if (before == NULL && PyErr_Occurred()) {
            goto done;
        }
        if (before != NULL) {
            double judge_after;
            if (expectation_of(before) < 0 || float_item(before, 4, &judge_after) < 0) {
                goto done;
            }
            if (built - judge_after <= window) {
                continue;  /* the one before still waits for its answer */
            }
        }
        PyObject *judge = PyFloat_FromDouble(built + (built - stamp));
        if (judge == NULL) {
            goto done;
        }
        PyObject *expectation = PyTuple_Pack(5, stamp_obj, PySequence_Fast_GET_ITEM(lines, i),
                                             own_velocity, PyTuple_GET_ITEM(n, 1), judge);
        Py_DECREF(judge);
        if (expectation == NULL) {
            goto done;
        }
        int failed = PyDict_SetItem(pending, name, expectation);
        Py_DECREF(expectation);
        if (failed < 0) {
            goto done;
        }
    }
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(neighbors);
    Py_DECREF(lines);
    return result;
}

/* The violation of one judged expectation (perception.reciprocity_violation) and whether
   anything was asked of the neighbour (|u|/2 above tolerance): 1 violated, 0 kept, -2
   nothing asked, -1 an error. */
static int
judge_expectation(PyObject *expectation, PyObject *velocity, double tolerance)
{
    PyObject *line = PyTuple_GET_ITEM(expectation, 1);
    if (!PyTuple_Check(line) || PyTuple_GET_SIZE(line) != 4) {
        PyErr_SetString(PyExc_TypeError, "an expectation's half-plane must be a HalfPlane");
        return -1;
    }
    double px, py, dx, dy, own_x, own_y, then_x, then_y, now_x, now_y;
    if (float_item(line, 0, &px) < 0 || float_item(line, 1, &py) < 0
            || float_item(line, 2, &dx) < 0 || float_item(line, 3, &dy) < 0
            || pair_of(PyTuple_GET_ITEM(expectation, 2), &own_x, &own_y) < 0
            || pair_of(PyTuple_GET_ITEM(expectation, 3), &then_x, &then_y) < 0
            || pair_of(velocity, &now_x, &now_y) < 0) {
        return -1;
    }
    if (py_hypot(px - own_x, py - own_y) <= tolerance) {
        return -2;  /* nothing was asked of it */
    }
    double mx = -dy, my = dx;
    double half_ux = px - own_x, half_uy = py - own_y;
    double violation = (now_x - then_x + half_ux) * mx + (now_y - then_y + half_uy) * my;
    return violation > tolerance;
}

PyDoc_STRVAR(reciprocity_observe_doc,
"reciprocity_observe(judged, pending, history, violations, flagged_at, tolerance,\n"
"                    window, min_violations, ratio)\n\n"
"ReciprocityMonitor.observe for each (name, stamp, velocity) of judged, in order: the\n"
"expectation waiting on name, if stamp is past its judge_after, is judged and dropped;\n"
"where something was asked of the neighbour its verdict joins history (the ones older\n"
"than window s dropped), and the neighbour is flagged at stamp when min_violations\n"
"violations, and at least ratio of its history, are in it, or when it violates while\n"
"flagged.");

static PyObject *
py_reciprocity_observe(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double tolerance, window, ratio;
    if (check_nargs("reciprocity_observe", nargs, 9) < 0
            || arg_double(args[5], "tolerance", &tolerance) < 0
            || arg_double(args[6], "window", &window) < 0
            || arg_double(args[8], "ratio", &ratio) < 0) {
        return NULL;
    }
    long min_violations = PyLong_AsLong(args[7]);
    if (min_violations == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *judged = args[0], *pending = args[1], *history = args[2];
    PyObject *violations = args[3], *flagged_at = args[4];
    if (!PyList_Check(judged) || !PyDict_Check(pending) || !PyDict_Check(history)
            || !PyDict_Check(violations) || !PyDict_Check(flagged_at)) {
        PyErr_SetString(PyExc_TypeError, "judged must be a list, the tables dicts");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(judged); i++) {
        PyObject *entry = PyList_GET_ITEM(judged, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3) {
            PyErr_SetString(PyExc_TypeError, "judged must hold (name, stamp, velocity)");
            return NULL;
        }
        PyObject *name = PyTuple_GET_ITEM(entry, 0), *stamp_obj = PyTuple_GET_ITEM(entry, 1);
        PyObject *expectation = PyDict_GetItemWithError(pending, name);  /* borrowed */
        if (expectation == NULL) {
            if (PyErr_Occurred()) {
                return NULL;
            }
            continue;
        }
        double stamp, judge_after;
        if (expectation_of(expectation) < 0 || float_item(entry, 1, &stamp) < 0
                || float_item(expectation, 4, &judge_after) < 0) {
            return NULL;
        }
        if (stamp <= judge_after) {
            continue;
        }
        Py_INCREF(expectation);
        int verdict = PyDict_DelItem(pending, name) < 0 ? -1
            : judge_expectation(expectation, PyTuple_GET_ITEM(entry, 2), tolerance);
        Py_DECREF(expectation);
        if (verdict == -1) {
            return NULL;
        }
        if (verdict == -2) {
            continue;
        }
        PyObject *kept = PyDict_GetItemWithError(history, name);  /* borrowed */
        if (kept == NULL) {
            if (PyErr_Occurred() || (kept = PyList_New(0)) == NULL) {
                return NULL;
            }
            int failed = PyDict_SetItem(history, name, kept);
            Py_DECREF(kept);  /* the dict holds it */
            if (failed < 0) {
                return NULL;
            }
        }
        if (!PyList_Check(kept)) {
            PyErr_SetString(PyExc_TypeError, "a history must be a list");
            return NULL;
        }
        PyObject *verdict_item = PyTuple_Pack(2, stamp_obj, verdict ? Py_True : Py_False);
        if (verdict_item == NULL || PyList_Append(kept, verdict_item) < 0) {
            Py_XDECREF(verdict_item);
            return NULL;
        }
        Py_DECREF(verdict_item);
        long count = 0;
        PyObject *counted = PyDict_GetItemWithError(violations, name);
        if (counted != NULL) {
            count = PyLong_AsLong(counted);
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
        count += verdict;
        Py_ssize_t old = 0, size = PyList_GET_SIZE(kept);
        while (old < size) {
            PyObject *item = PyList_GET_ITEM(kept, old);
            double when;
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2
                    || float_item(item, 0, &when) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_TypeError, "a history holds (stamp, violated)");
                }
                return NULL;
            }
            if (!(when < stamp - window)) {
                break;
            }
            count -= PyTuple_GET_ITEM(item, 1) == Py_True;
            old++;
        }
        if (old > 0 && PyList_SetSlice(kept, 0, old, NULL) < 0) {
            return NULL;
        }
        PyObject *total = PyLong_FromLong(count);
        if (total == NULL || PyDict_SetItem(violations, name, total) < 0) {
            Py_XDECREF(total);
            return NULL;
        }
        Py_DECREF(total);
        int flag = count >= min_violations
            && (double)count >= ratio * (double)PyList_GET_SIZE(kept);
        if (!flag && verdict) {
            flag = PyDict_Contains(flagged_at, name);
            if (flag < 0) {
                return NULL;
            }
        }
        if (flag && PyDict_SetItem(flagged_at, name, stamp_obj) < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"perceive_rows", (PyCFunction)(void (*)(void))py_perceive_rows, METH_FASTCALL,
     perceive_rows_doc},
    {"observed_rows", (PyCFunction)(void (*)(void))py_observed_rows, METH_FASTCALL,
     observed_rows_doc},
    {"make_neighbors", (PyCFunction)(void (*)(void))py_make_neighbors, METH_FASTCALL,
     make_neighbors_doc},
    {"neighbor_views", (PyCFunction)(void (*)(void))py_neighbor_views, METH_FASTCALL,
     neighbor_views_doc},
    {"reciprocity_expect", (PyCFunction)(void (*)(void))py_reciprocity_expect, METH_FASTCALL,
     reciprocity_expect_doc},
    {"reciprocity_observe", (PyCFunction)(void (*)(void))py_reciprocity_observe,
     METH_FASTCALL, reciprocity_observe_doc},
    {"kinematic_half_planes", (PyCFunction)(void (*)(void))py_kinematic_half_planes,
     METH_FASTCALL, kinematic_half_planes_doc},
    {"unicycle_command", (PyCFunction)(void (*)(void))py_unicycle_command, METH_FASTCALL,
     unicycle_command_doc},
    {"segment_min_distances", (PyCFunction)(void (*)(void))py_segment_min_distances,
     METH_FASTCALL, segment_min_distances_doc},
    {"agent_orca_half_plane_rows", (PyCFunction)(void (*)(void))py_agent_orca_half_plane_rows,
     METH_FASTCALL, agent_orca_half_plane_rows_doc},
    {"within_one_step", (PyCFunction)(void (*)(void))py_within_one_step, METH_FASTCALL,
     within_one_step_doc},
    {"safety_half_planes", (PyCFunction)(void (*)(void))py_safety_half_planes, METH_FASTCALL,
     safety_half_planes_doc},
    {"pair_distances", (PyCFunction)(void (*)(void))py_pair_distances, METH_FASTCALL,
     pair_distances_doc},
    {"one_step_safety_half_plane", (PyCFunction)(void (*)(void))py_one_step_safety_half_plane,
     METH_FASTCALL, one_step_safety_half_plane_doc},
    {"one_step_obstacle_half_plane",
     (PyCFunction)(void (*)(void))py_one_step_obstacle_half_plane, METH_FASTCALL,
     one_step_obstacle_half_plane_doc},
    {"closing_distance", (PyCFunction)(void (*)(void))py_closing_distance, METH_FASTCALL,
     closing_distance_doc},
    {"python_hypot", (PyCFunction)(void (*)(void))py_python_hypot, METH_FASTCALL,
     python_hypot_doc},
    {"linear_program_2d", (PyCFunction)(void (*)(void))py_linear_program_2d, METH_FASTCALL,
     linear_program_2d_doc},
    {"linear_program_3d", (PyCFunction)(void (*)(void))py_linear_program_3d, METH_FASTCALL,
     linear_program_3d_doc},
    {"agent_orca_half_plane", (PyCFunction)(void (*)(void))py_agent_orca_half_plane,
     METH_FASTCALL, agent_orca_half_plane_doc},
    {"obstacle_orca_half_plane", (PyCFunction)(void (*)(void))py_obstacle_orca_half_plane,
     METH_FASTCALL, obstacle_orca_half_plane_doc},
    {"select_agent_neighbors", (PyCFunction)(void (*)(void))py_select_agent_neighbors,
     METH_FASTCALL, select_agent_neighbors_doc},
    {"select_visible_edges", (PyCFunction)(void (*)(void))py_select_visible_edges,
     METH_FASTCALL, select_visible_edges_doc},
    {"solve_orca", (PyCFunction)(void (*)(void))py_solve_orca, METH_FASTCALL, solve_orca_doc},
    {"compute_new_velocity", (PyCFunction)(void (*)(void))py_compute_new_velocity,
     METH_FASTCALL, compute_new_velocity_doc},
    {"set_half_plane_type", py_set_half_plane_type, METH_O, set_half_plane_type_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_orca2d",
    "ORCA's hot path (RVO2's computeNewVelocity) in C; see orca_ros.core.orca.orca2d.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__orca2d(void)
{
    if ((str_point = PyUnicode_InternFromString("point")) == NULL
            || (str_next = PyUnicode_InternFromString("next")) == NULL
            || (str_prev = PyUnicode_InternFromString("prev")) == NULL
            || (str_unit_dir = PyUnicode_InternFromString("unit_dir")) == NULL
            || (str_is_convex = PyUnicode_InternFromString("is_convex")) == NULL
            || (str_orca_edge = PyUnicode_InternFromString("orca_edge")) == NULL
            || (str_position = PyUnicode_InternFromString("position")) == NULL
            || (str_velocity = PyUnicode_InternFromString("velocity")) == NULL
            || (str_radius = PyUnicode_InternFromString("radius")) == NULL
            || (str_key = PyUnicode_InternFromString("key")) == NULL
            || (str_uncertainty = PyUnicode_InternFromString("uncertainty")) == NULL
            || (str_reciprocates = PyUnicode_InternFromString("reciprocates")) == NULL
            || (str_age_uncertainty = PyUnicode_InternFromString("age_uncertainty")) == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    PyObject *epsilon = PyFloat_FromDouble(RVO_EPSILON);
    if (epsilon == NULL || PyModule_AddObjectRef(module, "RVO_EPSILON", epsilon) < 0) {
        Py_XDECREF(epsilon);
        Py_DECREF(module);
        return NULL;
    }
    Py_DECREF(epsilon);
    return module;
}
