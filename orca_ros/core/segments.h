/*
 * Distances between points, segments and wall segments as
 * orca_ros.core.geometry.segment_index computes them in numpy (its operations in its
 * order), so that the C answers are the numpy reference's number for number. Shared by
 * the ORCA extension (_orca2d: wall queries) and guidance's (_guidance: lines of sight).
 * Static functions: each extension that includes this header gets its own copy.
 */
#ifndef ORCA_ROS_SEGMENTS_H
#define ORCA_ROS_SEGMENTS_H

#include <math.h>
#include <stddef.h>

/* Distance from point (px, py) to segment a-b, with numpy's operations in its order
   (closest_points_on_segments, point_segment_distance), so the results are identical. */
static inline double
point_to_segment(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay;
    double length_sq = dx * dx + dy * dy;
    if (!(length_sq >= 1e-300)) {
        length_sq = 1e-300;
    }
    double t = ((px - ax) * dx + (py - ay) * dy) / length_sq;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double cx = ax + t * dx, cy = ay + t * dy;
    double ex = px - cx, ey = py - cy;
    return sqrt(ex * ex + ey * ey);
}

/* The lesser of two numbers, NaN if either is (numpy.minimum). */
static inline double
nan_min(double x, double y)
{
    return (isnan(x) || x < y) ? x : y;
}

static inline double
cross3(double ox, double oy, double ux, double uy, double vx, double vy)
{
    return (ux - ox) * (vy - oy) - (uy - oy) * (vx - ox);
}

/* Distance between segments p-q and a-b: segment_index.segment_distance. */
static inline double
segment_to_segment(double px, double py, double qx, double qy,
                   double ax, double ay, double bx, double by)
{
    double d1 = point_to_segment(px, py, ax, ay, bx, by);
    double d2 = point_to_segment(qx, qy, ax, ay, bx, by);
    double d3 = point_to_segment(ax, ay, px, py, qx, qy);
    double d4 = point_to_segment(bx, by, px, py, qx, qy);
    double first = nan_min(d1, d2), second = nan_min(d3, d4);
    double distance = nan_min(first, second);
    int crossing = (cross3(ax, ay, bx, by, px, py) * cross3(ax, ay, bx, by, qx, qy) < 0.0)
        && (cross3(px, py, qx, qy, ax, ay) * cross3(px, py, qx, qy, bx, by) < 0.0);
    return crossing ? 0.0 : distance;
}

/* The least distance between segment p-q and the segments a[i]-b[i] (e of them, rows of
   (x, y)): segment_index.segments_min_distance(...).min(); NaN as soon as one is NaN
   (numpy's minimum), infinite for e = 0. */
static inline double
segment_min_distance(double px, double py, double qx, double qy, const double *a,
                     const double *b, ptrdiff_t e)
{
    double least = INFINITY;
    for (ptrdiff_t i = 0; i < e; i++) {
        double d = segment_to_segment(px, py, qx, qy, a[2 * i], a[2 * i + 1], b[2 * i],
                                      b[2 * i + 1]);
        if (d < least || isnan(d)) {
            least = d;
            if (isnan(d)) {
                break;
            }
        }
    }
    return least;
}

#endif
