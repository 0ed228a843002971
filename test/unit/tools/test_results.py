"""orca-ros results (orca_ros/tools/results.py): a section's block replaced, the rest of
the page kept byte for byte, the stamp, and the refusals."""

import json

import pytest

from orca_ros.core.errors import REFUSED, InputError
from orca_ros.tools import results
from orca_ros.tools.cli import main

PAGE = ("# Results\r\n\nProse *kept*   as it is.\n\n"
        "<!-- results:conformance -->\nold table\n<!-- /results:conformance -->\n"
        "\nBetween.\n\n<!-- results:public-supervisor -->\nold\n"
        "<!-- /results:public-supervisor -->\ntrailing, no newline")


def _printed(argv):
    assert argv[0] == "conformance"
    return "case                 40/40 passed\n320 passed, 0 failed\n"


def test_only_the_marked_block_is_replaced_and_the_rest_kept_byte_for_byte(tmp_path):
    page = tmp_path / "results.md"
    page.write_bytes(PAGE.encode())
    done = results.refresh(page, ["conformance"], tmp_path, runner=_printed,
                           date="2026-12-01", on_machine="Debian 12, 2 cores X, 24 GB",
                           at_commit="abc1234", report=lambda line: None)
    assert done == ["conformance"]
    text = page.read_bytes().decode()
    head, rest = PAGE.split("<!-- results:conformance -->", 1)
    tail = rest.split("<!-- /results:conformance -->", 1)[1]
    assert text.startswith(head + "<!-- results:conformance -->\n")
    assert text.endswith("<!-- /results:conformance -->" + tail)
    block = text[len(head):len(text) - len(tail)]
    assert "old table" not in block
    assert ("Measured with `orca-ros conformance test/data/rvo2_single_step.jsonl` at "
            "commit abc1234 on 2026-12-01 (Debian 12, 2 cores X, 24 GB).") in block
    assert "```text\ncase                 40/40 passed\n320 passed, 0 failed\n```" in block


def test_refreshing_twice_gives_the_same_page(tmp_path):
    page = tmp_path / "results.md"
    page.write_text(PAGE)
    kwargs = dict(runner=_printed, date="d", on_machine="m", at_commit="c",
                  report=lambda line: None)
    results.refresh(page, ["conformance"], tmp_path, **kwargs)
    once = page.read_bytes()
    results.refresh(page, ["conformance"], tmp_path, **kwargs)
    assert page.read_bytes() == once


def test_a_columns_section_renders_bench_rows_side_by_side(tmp_path, monkeypatch):
    rows = [{"scenario": "s1", "reached": 2, "agents": 2, "collisions": 0, "makespan": 14.6,
             "conflicts": 1}]

    def bench(argv):
        assert argv[0] == "bench" and "--json" in argv
        with open(argv[argv.index("--json") + 1], "w") as out:
            json.dump(rows, out)
        return ""

    section = results.find_section("public-supervisor")
    table = results.columns_table(section.groups, [rows])
    assert table.splitlines()[2] == "| s1 | 2/2 | 0 | 14.6 | 1 |"
    page = tmp_path / "results.md"
    page.write_text(PAGE)
    monkeypatch.setenv("SCENARIOS", str(tmp_path))
    (tmp_path / "a.yaml").write_text("")
    results.refresh(page, ["public-supervisor"], tmp_path, runner=bench, date="d",
                    on_machine="m", at_commit="c", report=lambda line: None)
    assert "| s1 | 2/2 | 0 | 14.6 | 1 |" in page.read_text()


def test_the_stamp_names_this_machine_and_the_commit(tmp_path):
    assert "cores" in results.machine()
    assert results.commit(tmp_path) == "unknown"  # not a git work tree


def test_a_page_without_the_markers_is_refused_and_left_alone(tmp_path):
    page = tmp_path / "results.md"
    page.write_text("no markers\n")
    with pytest.raises(InputError):
        results.refresh(page, ["conformance"], tmp_path, runner=_printed,
                        report=lambda line: None)
    assert page.read_text() == "no markers\n"


def test_a_section_measured_by_hand_is_not_run():
    with pytest.raises(InputError, match="by hand"):
        results.render(results.find_section("fleet-scale"), runner=_printed)


def test_an_unknown_section_is_refused_with_status_2(tmp_path, capsys):
    page = tmp_path / "results.md"
    page.write_bytes(PAGE.encode())
    assert main(["results", "--page", str(page), "--only", "nope"]) == REFUSED
    assert "no section 'nope'" in capsys.readouterr().err
    assert page.read_bytes() == PAGE.encode()


def test_list_names_every_section_with_its_command(capsys):
    assert main(["results", "--list"]) == 0
    out = capsys.readouterr().out
    for section in results.SECTIONS:
        assert section.name in out
    assert "orca-ros conformance test/data/rvo2_single_step.jsonl" in out


def test_the_peers_section_takes_the_comparison_the_bench_prints_last(tmp_path, monkeypatch):
    """``bench --compare`` prints our tables first and the comparison last: the section
    is that last table, whatever comes before it."""
    from orca_ros.tools import results

    (tmp_path / "a.yaml").write_text("")
    monkeypatch.setenv("SCENARIOS", str(tmp_path))  # the section runs every public file
    printed = ("| scenario | method |\n|---|---|\n| a | orca |\n\n| motion |\n|---|\n| x |\n\n"
               "| scenario | method | reached |\n|---|---|---:|\n| a | orca | 4/4 |\n"
               "| a | navground-orca | 3/4 |\n")
    section = results.find_section("peers")
    assert "--compare navground rvo2" in section.commands[0] and not section.auto
    assert results.render(section, lambda argv: printed) == (
        "| scenario | method | reached |\n|---|---|---:|\n| a | orca | 4/4 |\n"
        "| a | navground-orca | 3/4 |")


def test_the_retreat_section_gives_each_kinematics_retreat_and_median_steering():
    holonomic = [{"scenario": "s1", "retreat_max_m": 0.0,
                  "steering_reversals_per_min_median": 6.08}]
    diff_drive = [{"scenario": "s1", "retreat_max_m": 1.234,
                   "steering_reversals_per_min_median": None}]
    table = results.columns_table(results.find_section("public-retreat").groups,
                                  [holonomic, diff_drive])
    assert "steering reversals /min (median robot)" in table.splitlines()[0]
    assert table.splitlines()[2] == "| s1 | 0.00 | 6.1 | 1.23 | - |"


def test_the_stamp_gives_the_version_of_each_peer_the_commands_run():
    versions = {"navground": "0.7.0", "pyrvo": "0.4.3"}.__getitem__
    peers = results.find_section("peers")
    stamp = results.stamp_line(peers, "c", "d", "m", version=versions)
    assert stamp.endswith("at commit c on d (m; navground 0.7.0; pyrvo 0.4.3).")
    own = results.stamp_line(results.find_section("public-retreat"), "c", "d", "m",
                             version=versions)
    assert own.endswith("(m).")
