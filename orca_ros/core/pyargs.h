/*
 * Reading a C function's Python arguments, for orca_ros's C extensions: the same
 * errors everywhere ("x must be a number, not str", "f() takes 3 positional arguments
 * (2 given)"). Static functions: each extension that includes this header gets its own.
 */
#ifndef ORCA_ROS_PYARGS_H
#define ORCA_ROS_PYARGS_H

#include <Python.h>

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

#endif
