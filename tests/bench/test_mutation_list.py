"""The mutation spot check's lists follow the code (docs/testing.md, "Rule
mutations"): ``python -m wdg.bench.mutants`` reports a mutation whose line is
gone as *stale*; this test says so in every test run, before the bench runs."""

from __future__ import annotations

from wdg.bench.mutants import MUTATIONS, ROOT, main
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
