/*
 * Reading a C function's Python arguments, for orca_ros's C extensions: the same
 * errors everywhere ("x must be a number, not str", "f() takes 3 positional arguments
 * (2 given)"). Static functions: each extension that includes this header gets its own.
 */
#ifndef ORCA_ROS_PYARGS_H
#define ORCA_ROS_PYARGS_H

#include <Python.h>
#include <string.h>

static inline int
as_double(PyObject *obj, double *out)
{
    if (PyFloat_CheckExact(obj)) {
        *out = PyFloat_AS_DOUBLE(obj);
        return 0;
    }
    double value = PyFloat_AsDouble(obj);
    if (value == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    *out = value;
    return 0;
}

static inline int
arg_double(PyObject *obj, const char *name, double *out)
{
    if (as_double(obj, out) < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", name,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    return 0;
}

static inline int
check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments (%zd given)", name,
                     expected, nargs);
        return -1;
    }
    return 0;
}

static inline int
arg_index(PyObject *obj, const char *name, Py_ssize_t *out)
{
    Py_ssize_t value = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (value == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", name,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    *out = value;
    return 0;
}

/* A float64 C-contiguous buffer of ``count`` numbers, named in errors; ``writable``:
   one the caller writes into. Release it with PyBuffer_Release. */
static inline int
get_buffer(PyObject *obj, const char *name, Py_ssize_t count, int writable,
           Py_buffer *view)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous float64 array", name,
                     writable ? "writable " : "");
        return -1;
    }
    if (view->format == NULL || strcmp(view->format, "d") != 0 || view->itemsize != 8
            || view->len != count * 8) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd float64 numbers", name, count);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#endif
