"""The fault reports for people: one line per injected fault (what ``orca-ros sim``
prints under its summary) and the Markdown table of ``orca-ros fault-suite``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


def result_lines(report: Dict[str, Any]) -> List[str]:
    """One human line per injected fault (what ``orca-ros sim`` prints)."""
    lines = []
    for item in report.get("injected", []):
        fault = item["fault"]
        if fault in ("drop_odom", "drop_cmd"):
            what = "odometry deliveries to orca_nodes" if fault == "drop_odom" else \
                "cmd_vel deliveries to the simulator"
            lines.append(f"{','.join(item['entries'])}: dropped {item['dropped']} of "
                         f"{item['received']} {what}")
        elif fault == "delay":
            age = item["odom_age_at_callback_s"]
            lines.append(f"{','.join(item['entries'])}: delayed {item['odom_delayed']} odometry "
                         f"and {item['cmd_delayed']} cmd_vel deliveries (sim time); odometry age "
                         f"at the callback mean {age['mean']} s, max {age['max']} s")
        elif fault == "starve":
            lines.append(f"starve={item['robot']}:{item['fraction']:g}: control ran "
                         f"{item['ticks_run']} of {item['control_ticks']} ticks; "
                         f"{item['messages_held']} messages held (mean {item['mean_hold_s']} s)")
        elif fault == "kill":
            if item["killed_at"] is None:
                lines.append(f"kill={item['robot']}@{item['at']:g}: not reached (run ended first)")
            else:
                lines.append(f"kill={item['robot']}@{item['at']:g}: orca_node destroyed at "
                             f"{item['killed_at']:.2f} s; {item['commands_after_kill']} commands "
                             f"sent after that reached the simulator (last sent at "
                             f"{item['last_command_at']}); "
                             f"arrived: {item.get('arrived')}")
        elif fault in ("kill_supervisor", "kill_obstacles"):
            killed = item["killed_at"]
            lines.append(f"{fault}@{item['at']:g}: " + ("not reached (run ended first)"
                                                         if killed is None else
                                                         f"destroyed at {killed:.2f} s"))
        elif fault == "bad_obstacles":
            lines.append(f"bad_obstacles={item['period_s']:g}: {item['published']} bad markers "
                         f"published; orca_nodes rejected {item['rejected_by_orca_nodes']} "
                         f"/obstacles messages; robots left without obstacles: "
                         f"{', '.join(item['robots_without_obstacles']) or 'none'}")
        elif fault == "foreign":
            lines.append(f"foreign={item['robot']}:{item['mode']}: {item['commands_published']} "
                         f"commands published; arrived: {item.get('arrived')}")
    return lines


def suite_table(rows: List[Dict[str, Any]]) -> str:
    """Markdown table of suite results (each row: label, supervisor, summary)."""
    baseline: Dict[bool, Optional[float]] = {}
    for row in rows:
        if not row["spec"] and row["supervisor"] not in baseline:
            baseline[row["supervisor"]] = row["summary"].get("makespan")
    lines = ["| fault | arrived | colliding pairs (fleet_sim) | observer colliding pairs | "
             "min separation m | makespan s | makespan vs no fault |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        s = row["summary"]
        observer = s.get("observer") or {}
        observed = observer.get("colliding_pairs", "-") if "error" not in observer else "error"
        base = baseline.get(row["supervisor"])
        makespan = s.get("makespan")
        ratio = f"{makespan / base:.2f}x" if makespan and base and row["spec"] else \
            ("1.00x" if makespan and not row["spec"] else "-")
        if makespan is not None and s["reached"] < s["agents"] and row["spec"]:
            ratio += " (arrived only)"
        separation = s.get("min_separation")
        mark = " (*)" if s.get("other_nodes_on_domain") else ""
        lines.append(f"| {row['label']}{mark} | {s['reached']}/{s['agents']} | {s['collisions']} | "
                     f"{observed} | {'-' if separation is None else f'{separation:.3f}'} | "
                     f"{'-' if makespan is None else f'{makespan:.1f}'} | {ratio} |")
    if any(row["summary"].get("other_nodes_on_domain") for row in rows):
        lines.append("\n(*) another process had nodes on this ROS domain during the run: "
                     "its traffic may have mixed in.")
    return "\n".join(lines)
