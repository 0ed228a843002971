"""When ``python -m orca_ros.launch_run`` stops a run, and what its summary says of the
arrivals (no launch engine needed: the stop rule and the summary only)."""


def test_a_stop_on_fleet_sims_word_gives_the_observer_time_to_see_it(tmp_path, monkeypatch):
    """toio_cross_4v4 with two busy loops beside: launch_run stopped the moment fleet_sim
    counted 8 of 8 arrived and reported the observer's 3 of 8, which trailed it. Now the
    observer gets OBSERVER_CATCH_UP wall seconds first (its own count stops the run at
    once), and the summary gives both counts where they differ."""
    import json

    from orca_ros import launch_run

    clock = [100.0]
    monkeypatch.setattr(launch_run.time, "monotonic", lambda: clock[0])
    status = tmp_path / "status.json"
    stopper = launch_run.Stopper(service=None, status_path=str(status), wall_limit=600.0)
    status.write_text(json.dumps({"robots": 8, "arrived": 3, "fleet_sim_arrived": 8}))
    assert stopper._why_stop() is None
    clock[0] += launch_run.OBSERVER_CATCH_UP - 0.5
    assert stopper._why_stop() is None
    clock[0] += 0.5
    assert stopper._why_stop() == "every robot arrived (fleet_sim /diagnostics)"
    status.write_text(json.dumps({"robots": 8, "arrived": 8, "fleet_sim_arrived": 8}))
    assert stopper._why_stop() == "every robot arrived (observer)"

    assert launch_run._fleet_sim_count({"robots": 8, "arrived": 3, "fleet_sim_arrived": 8}) \
        == " by the observer, 8/8 by fleet_sim"
    assert launch_run._fleet_sim_count({"robots": 8, "arrived": 8, "fleet_sim_arrived": 8}) == ""
