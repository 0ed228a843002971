/*
 * The neighbours' announced states, read from their bytes: orca_ros/nodes/state_batch.py
 * puts a process's robots' states of one control period in one std_msgs/UInt8MultiArray,
 * each a serialized nav_msgs/Odometry. Every process reads every batch, so at 100 robots
 * a robot's process reads a thousand states a second; read_state_batch reads a whole
 * batch in one call, with the rules of the Python readers it stands in for
 * (state_batch.batch_states, ros_common.odometry_fields and state_of,
 * NeighborOdometry._take), number for number. A state those rules would refuse is left
 * to them (None in its place), so that they say what is wrong with it.
 *
 * ROS wiring (a wire format), so it lives with the nodes, not in core. Built by
 * setup.py (EXTENSIONS) with floating-point contraction off, as Python rounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pyargs.h"
#include "pymath.h"

static int
cdr_u32(const unsigned char *data, Py_ssize_t size, Py_ssize_t offset, uint32_t *out)
{
    if (offset < 0 || offset + 4 > size) {
        return -1;
    }
    memcpy(out, data + offset, 4);
    return 0;
}

static Py_ssize_t
cdr_align(Py_ssize_t offset, Py_ssize_t to)  /* alignment counted after the 4-byte header */
{
    return 4 + ((offset - 4 + to - 1) & ~(to - 1));
}

static PyObject *
cdr_text(const unsigned char *text, Py_ssize_t length)  /* NULs stripped at the end */
{
    while (length > 0 && text[length - 1] == 0) {
        length--;
    }
    return PyUnicode_DecodeUTF8((const char *)text, length, "replace");
}

/* One serialized Odometry as (robot, stamp ns, x, y, world vx, world vy, z, vz,
 * uncertainty), or Py_None (a new reference either way) when the Python rules would
 * refuse or read it otherwise; NULL on a Python error. */
static PyObject *
announced_state(const unsigned char *data, Py_ssize_t size, const char *frame,
                Py_ssize_t frame_length, double bound, double deviations)
{
    uint32_t frame_len, child_len, nanosec;
    int32_t sec;
    if (size < 16 || data[0] != 0 || data[1] != 1) {
        Py_RETURN_NONE;
    }
    memcpy(&sec, data + 4, 4);
    memcpy(&nanosec, data + 8, 4);
    memcpy(&frame_len, data + 12, 4);
    Py_ssize_t offset = 16 + (Py_ssize_t)frame_len;
    if (offset > size) {
        Py_RETURN_NONE;
    }
    Py_ssize_t own = frame_len;
    while (own > 0 && data[16 + own - 1] == 0) {
        own--;
    }
    if (own != frame_length || memcmp(data + 16, frame, own) != 0) {
        Py_RETURN_NONE;
    }
    offset = cdr_align(offset, 4);
    if (cdr_u32(data, size, offset, &child_len) < 0) {
        Py_RETURN_NONE;
    }
    Py_ssize_t child = offset + 4;
    offset = child + (Py_ssize_t)child_len;
    offset = cdr_align(offset, 8);
    double n[21];  /* "<7d2d40xd224x6d": pose, covariance xx xy .. yy, twist */
    if (offset < 0 || offset + (Py_ssize_t)(9 * 8 + 40 + 8 + 224 + 6 * 8) > size) {
        Py_RETURN_NONE;
    }
    memcpy(n, data + offset, 9 * 8);
    memcpy(n + 9, data + offset + 9 * 8 + 40, 8);
    memcpy(n + 10, data + offset + 9 * 8 + 40 + 8 + 224, 6 * 8);
    double px = n[0], py = n[1], pz = n[2], qx = n[3], qy = n[4], qz = n[5], qw = n[6];
    double cxx = n[7], cxy = n[8], cyy = n[9];
    double vx = n[10], vy = n[11], vz = n[12], wz = n[15];
    double checked[11] = {px, py, pz, qx, qy, qz, qw, vx, vy, vz, wz};
    for (int k = 0; k < 11; k++) {
        if (!isfinite(checked[k])) {
            Py_RETURN_NONE;
        }
    }
    if (qx * qx + qy * qy + qz * qz + qw * qw < 1e-12) {
        Py_RETURN_NONE;
    }
    if (py_max(py_max(fabs(px), fabs(py)), fabs(pz)) > bound) {
        Py_RETURN_NONE;
    }
    if (!(isfinite(cxx) && isfinite(cxy) && isfinite(cyy))) {
        Py_RETURN_NONE;
    }
    PyObject *name = cdr_text(data + child, child_len);
    if (name == NULL) {
        return NULL;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(name), start = 0, end = length;
    while (start < end && PyUnicode_READ_CHAR(name, start) == '/') {
        start++;
    }
    while (end > start && PyUnicode_READ_CHAR(name, end - 1) == '/') {
        end--;
    }
    if (start == end) {
        Py_DECREF(name);
        Py_RETURN_NONE;
    }
    if (start > 0 || end < length) {
        Py_SETREF(name, PyUnicode_Substring(name, start, end));
        if (name == NULL) {
            return NULL;
        }
    }
    /* state_of: the body twist turned by the heading, wrapped as frames.wrap_angle does */
    double yaw = atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz));
    double wrapped = fmod(yaw + M_PI, 2.0 * M_PI);
    if (wrapped <= 0.0) {
        wrapped += 2.0 * M_PI;
    }
    yaw = wrapped - M_PI;
    double c = cos(yaw), s_ = sin(yaw);
    /* localization.position_deviation */
    double half_trace = 0.5 * (cxx + cyy);
    double spread = py_hypot(0.5 * (cxx - cyy), cxy);
    double uncertainty = deviations * sqrt(py_max(half_trace + spread, 0.0));
    long long stamp = (long long)sec * 1000000000LL + (long long)nanosec;
    return Py_BuildValue("(NLddddddd)", name, stamp, px, py, c * vx - s_ * vy,
                         s_ * vx + c * vy, pz, vz, uncertainty);
}

PyDoc_STRVAR(read_state_batch_doc,
"read_state_batch(data, frame, bound, deviations) -> list or None\n\n"
"A serialized state batch (orca_ros.nodes.state_batch: plain little-endian CDR) as one\n"
"entry per state: (robot, stamp ns, x, y, vx, vy, z, vz, uncertainty) with the\n"
"velocity in the shared frame and the uncertainty ``deviations`` times the position's\n"
"larger standard deviation, or None for a state the Python readers must read (not\n"
"plain CDR, not in ``frame``, truncated, naming no robot, a non-finite number, a zero\n"
"quaternion, a coordinate beyond ``bound``). None for the whole batch when it is not\n"
"plain CDR or cannot be read as one.");

static PyObject *
py_read_state_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    double bound = 0.0, deviations = 0.0;
    if (check_nargs("read_state_batch", nargs, 4) < 0
            || arg_double(args[2], "bound", &bound) < 0
            || arg_double(args[3], "deviations", &deviations) < 0) {
        return NULL;
    }
    if (!PyBytes_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "read_state_batch(data: bytes, frame: str, ...)");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]), frame_length;
    const char *frame = PyUnicode_AsUTF8AndSize(args[1], &frame_length);
    if (frame == NULL) {
        return NULL;
    }
    uint32_t count;
    if (size < 8 || data[0] != 0 || data[1] != 1 || cdr_u32(data, size, 4, &count) < 0
            || count > (uint32_t)(size / 12)) {
        Py_RETURN_NONE;
    }
    Py_ssize_t *sizes = PyMem_Malloc((count > 0 ? count : 1) * sizeof(Py_ssize_t));
    if (sizes == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    Py_ssize_t offset = 8, total = 0;
    for (uint32_t k = 0; k < count; k++) {  /* the layout's dimensions: label, size, stride */
        uint32_t length, dim_size;
        offset = cdr_align(offset, 4);
        if (cdr_u32(data, size, offset, &length) < 0 || length == 0
                || offset + 4 + (Py_ssize_t)length > size) {
            goto unreadable;
        }
        offset = cdr_align(offset + 4 + (Py_ssize_t)length, 4);
        if (cdr_u32(data, size, offset, &dim_size) < 0 || offset + 8 > size) {
            goto unreadable;
        }
        sizes[k] = dim_size;
        total += dim_size;
        offset += 8;
    }
    offset = cdr_align(offset, 4);
    uint32_t data_offset, length;
    if (cdr_u32(data, size, offset, &data_offset) < 0
            || cdr_u32(data, size, offset + 4, &length) < 0 || data_offset != 0
            || offset + 8 + (Py_ssize_t)length != size || total != (Py_ssize_t)length) {
        goto unreadable;
    }
    result = PyList_New(count);
    if (result == NULL) {
        goto done;
    }
    Py_ssize_t start = offset + 8;
    for (uint32_t k = 0; k < count; k++) {
        PyObject *entry = announced_state(data + start, sizes[k], frame, frame_length, bound,
                                          deviations);
        if (entry == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, k, entry);
        start += sizes[k];
    }
    goto done;
unreadable:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(sizes);
    return result;
}

static PyMethodDef methods[] = {
    {"read_state_batch", (PyCFunction)(void (*)(void))py_read_state_batch, METH_FASTCALL,
     read_state_batch_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_state_batch",
    "The neighbours' announced states read from a state batch's bytes in C; see "
    "orca_ros.nodes.state_batch.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__state_batch(void)
{
    return PyModule_Create(&module_def);
}
