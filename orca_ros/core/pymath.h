/*
 * Python's float arithmetic where C's differs, for orca_ros's C extensions: results
 * that agree with the Python they replaced (kept in test/helpers) to the last bit.
 * Static functions: each extension that includes this header gets its own copy.
 */
#ifndef ORCA_ROS_PYMATH_H
#define ORCA_ROS_PYMATH_H

#include <Python.h>

#include <float.h>
#include <math.h>

/* Python's min(a, b) and max(a, b): a unless b is strictly smaller or larger (so a NaN
   first stays, a NaN second is passed over). */
static inline double
py_min(double a, double b)
{
    return b < a ? b : a;
}

static inline double
py_max(double a, double b)
{
    return b > a ? b : a;
}

/* math.hypot(x, y) as CPython (3.10 and later) computes it (mathmodule.c's vector_norm:
   an exact square, compensated sums, a corrected square root), so that the lengths here
   are Python's to the last bit; the C library's hypot may round differently. */
static inline double
py_hypot(double x, double y)
{
    double vec[2] = {fabs(x), fabs(y)};
    double max = 0.0;
    int found_nan = 0;
    for (int i = 0; i < 2; i++) {
        found_nan |= isnan(vec[i]);
        if (vec[i] > max) {
            max = vec[i];
        }
    }
    if (isinf(max)) {
        return max;
    }
    if (found_nan) {
        return NAN;
    }
    if (max == 0.0) {
        return max;
    }
    int max_e;
    frexp(max, &max_e);
    double tiny = 1.0;
    if (max_e < -1023) {
#if PY_VERSION_HEX >= 0x030C0000
        /* subnormal: scaled up first, as vector_norm recurses (3.12 and later) */
        vec[0] /= DBL_MIN;
        vec[1] /= DBL_MIN;
        max /= DBL_MIN;
        tiny = DBL_MIN;
        frexp(max, &max_e);
#else
        /* subnormal: divided by the largest, as vector_norm does (3.10, 3.11) */
        double csum = 1.0, frac = 0.0;
        for (int i = 0; i < 2; i++) {
            double v = vec[i] / max;
            v = v * v;
            double old = csum;
            csum += v;
            frac += (old - csum) + v;
        }
        return max * sqrt(csum - 1.0 + frac);
#endif
    }
    double scale = ldexp(1.0, -max_e);
    double csum = 1.0, frac1 = 0.0, frac2 = 0.0;
    for (int i = 0; i < 2; i++) {
        double v = vec[i] * scale;
        double hi = v * v;
        double lo = fma(v, v, -hi);             /* exact square: hi + lo */
        double sum = csum + hi;
        frac2 += (csum - sum) + hi;             /* exact sum: csum >= hi */
        csum = sum;
        frac1 += lo;
    }
    double h = sqrt(csum - 1.0 + (frac1 + frac2));
    double hi = -h * h;
    double lo = fma(-h, h, -hi);
    double sum = csum + hi;
    frac2 += (csum - sum) + hi;
    csum = sum;
    frac1 += lo;
    double rest = csum - 1.0 + (frac1 + frac2);
    h += rest / (2.0 * h);
    return tiny * (h / scale);
}

#endif
