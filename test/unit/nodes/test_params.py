"""orca_ros.nodes.params: a parameter whose choices are tested (``accepts``) rather than
listed at every start."""

from orca_ros.nodes.params import Param, value_problem


def _param(asked):
    def choices():
        asked.append(True)
        return ("orca", "plugin_method")

    return Param("method", "orca", "avoidance method", choices=choices,
                 accepts=lambda value: value == "orca")


def test_a_value_the_test_accepts_is_taken_without_listing_the_choices():
    asked = []
    param = _param(asked)  # its default checked at construction
    assert value_problem(param, "orca") is None
    assert param.full_description == "avoidance method"  # no "(one of: ...)"
    assert asked == []


def test_a_value_the_test_refuses_is_checked_against_the_choices_and_named():
    asked = []
    param = _param(asked)
    assert value_problem(param, "plugin_method") is None  # listed: another package's
    assert value_problem(param, "tank") == \
        "must be one of ['orca', 'plugin_method'], got 'tank'"
    assert len(asked) == 2
