"""The mutation spot check's lists follow the code (docs/testing.md, "Rule
mutations"): ``python -m wdg.bench.mutants`` reports a mutation whose line is
gone as *stale*; this test says so in every test run, before the bench runs."""

from __future__ import annotations

from wdg.bench.mutants import MUTATIONS, ROOT, Mutation, baseline, main
from wdg.bench.mutations_rules import RULE_MUTATIONS


def test_every_mutation_finds_its_line_once_and_its_tests_exist():
    """Each mutation's ``old`` text occurs exactly once in its file (else the
    bench cannot apply it), differs from ``new``, and names existing test files."""
    problems = []
    for mu in MUTATIONS + RULE_MUTATIONS:
        found = (ROOT / mu.path).read_text(encoding="utf-8").count(mu.old)
        if found != 1:
            problems.append(f"{mu.name}: {mu.path} has its line {found} times")
        if mu.old == mu.new:
            problems.append(f"{mu.name}: changes nothing")
        problems += [f"{mu.name}: no test file {t}" for t in mu.tests if not (ROOT / t).is_file()]
    assert not problems, problems


def test_mutation_names_are_unique_so_only_picks_them():
    """``--only NAME`` and the report's lines tell mutations apart by name."""
    names = [mu.name for mu in MUTATIONS + RULE_MUTATIONS]
    assert len(names) == len(set(names))


def test_set_chooses_the_rounding_or_the_rule_mutations(capsys):
    """``--set rules --list`` lists the rule mutations only, ``--set all`` both."""
    assert main(["--set", "rules", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(RULE_MUTATIONS)
    assert main(["--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(MUTATIONS) + len(RULE_MUTATIONS)


def test_a_test_that_fails_without_any_mutation_stops_the_run(tmp_path):
    """A test failing on the unchanged copy (as the docs test of
    ``tests/engine/test_movement.py`` did while ``docs/`` was not copied) would
    "kill" every mutation listing its file: :func:`baseline` reports it."""
    (tmp_path / "test_fine.py").write_text("def test_fine():\n    assert True\n")
    (tmp_path / "test_broken.py").write_text("def test_broken():\n    assert False\n")
    fine = Mutation("fine", "x.py", "a", "b", ("test_fine.py",))
    broken = Mutation("broken", "x.py", "a", "b", ("test_fine.py", "test_broken.py"))
    assert baseline(tmp_path, [fine]) is None
    report = baseline(tmp_path, [fine, broken])
    assert report is not None and "test_broken" in report
