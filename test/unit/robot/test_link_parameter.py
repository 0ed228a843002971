"""orca_node's ``links`` parameter without ROS (``orca_ros.core.robot.link_groups``): the text
read and checked as the scenario's ``links:`` are, and the views of partners and other
groups' links a robot's method gets from what it observed."""

import pytest

from orca_ros.core.robot.link_groups import LinkParameterError, links_text, parse_links
from orca_ros.core.scenario.loader import LinkSpec


def test_parse_links_reads_yaml_or_json_and_checks_the_scenario_rules():
    assert parse_links("") == () and parse_links("  ") == () and parse_links("[]") == ()
    links = parse_links("[{agents: [a0, /a1], max_length: 1.2, rest_length: 1.0},"
                        " {agents: [b0, b1, b2], max_length: 0.8}]")
    assert links == (LinkSpec(("a0", "a1"), 1.2, 1.0), LinkSpec(("b0", "b1", "b2"), 0.8))
    assert parse_links(links_text(links)) == links  # the fleet plan's text reads back
    assert parse_links('[{"agents": ["a", "b"], "max_length": 2}]') == \
        (LinkSpec(("a", "b"), 2.0),)
    bad = {
        "{{{": "not valid YAML",
        "a0-a1": "expected",
        "{agents: [a, b], max_length: 1}": "expected",
        "[{agents: [a, b, c, d], max_length: 1}]": "2 or 3",
        "[{agents: [a], max_length: 1}]": "2 or 3",
        "[{agents: [a, a], max_length: 1}]": "twice",
        "[{agents: [a, b], max_length: 1}, {agents: [b, c], max_length: 1}]": "one group",
        "[{agents: [a, b], max_length: -1.0}]": "max_length must be positive",
        "[{agents: [a, b], max_length: 0}]": "max_length must be positive",
        "[{agents: [a, b], max_length: .nan}]": "max_length must be finite",
        "[{agents: [a, b], max_length: far}]": "max_length must be a number",
        "[{agents: [a, b]}]": "missing 'max_length'",
        "[{agents: [a, b], max_length: 1, rest_length: 2}]": "exceeds max_length",
        "[{agents: [a, b], max_length: 1, stiffness: 3}]": "unknown key",
        "[[a, b]]": "must be a mapping",
    }
    for text, reason in bad.items():
        with pytest.raises(LinkParameterError, match=reason) as error:
            parse_links(text, "links")
        assert str(error.value).startswith("links"), text


def test_linked_views_carry_partners_forward_and_list_the_unseen_and_stale():
    """The pure core of orca_node's link handling (``core.link_params.linked_views``)."""
    from orca_ros.core.robot.link_groups import linked_views

    groups = parse_links("[{agents: [me, p1, p2], max_length: 1.5},"
                         " {agents: [b0, b1], max_length: 1.0},"
                         " {agents: [far0, far1], max_length: 1.0}]")
    observed = {"p1": ((1.0, 0.0), (0.5, 0.0), 0.2),  # 0.2 s old, lag 0.1 -> +0.15 m
                "b0": ((0.0, 2.0), (0.0, 0.0), 0.0), "b1": ((1.0, 2.0), (0.0, 0.0), 5.0),
                "far0": ((50.0, 0.0), (0.0, 0.0), 0.0), "far1": ((51.0, 0.0), (0.0, 0.0), 0.0)}
    views = linked_views("me", groups, observed, lambda name: 0.2, lag=0.1, timeout=1.0,
                         position=(0.0, 0.0), reach=10.0)
    assert [t.key for t in views.tethers] == ["p1"]
    assert views.tethers[0].position == pytest.approx((1.15, 0.0))
    assert views.tethers[0].max_length == 1.5
    assert views.missing == ["p2"] and views.stale == []
    # another group's link: known once both ends were seen, carried at most `timeout`;
    # the one 50 m away is beyond reach
    assert [link.keys for link in views.links] == [("b0", "b1")]
    observed["p2"] = ((0.0, 1.0), (0.0, 0.0), 1.5)
    assert linked_views("me", groups, observed, lambda name: 0.2, 0.1, 1.0, (0.0, 0.0),
                        10.0).stale == ["p2"]
