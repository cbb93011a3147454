"""wdg.yamlfast writes exactly the text yaml.dump writes and reads exactly the
values yaml.safe_load reads (the archive's state files and the kingdom views
are compared byte for byte on replay)."""

from __future__ import annotations

import math
import random

import pytest
import yaml

from wdg import yamlfast

DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
OPTIONS = [dict(sort_keys=False, allow_unicode=True, default_flow_style=False, width=100),
           dict(sort_keys=False, allow_unicode=True),
           dict(sort_keys=True, default_flow_style=None),
           dict(allow_unicode=False, width=40)]

STRINGS = ["", " ", "plain", "yes", "no", "on", "null", "~", "true", "1", "0777", "0x1F", "1:30",
           "1e3", ".inf", "2024-01-01", "317.23", "000.00", "a: b", "- x", "#c", "'q'", '"d"',
           "Grüße, Kö\u00a0nig", "line\nbreak", "tab\there", "\u202eRLO", "\x85nel", "x" * 150,
           "word " * 40, "</script>", "&anchor", "*alias", "!tag", "%", "@", "`", "{a}", "[b]"]


def _random_data(rng: random.Random, depth: int = 0):
    pick = rng.randrange(11 if depth < 4 else 7)
    if pick == 0:
        return rng.choice(STRINGS)
    if pick == 1:
        return rng.randint(-10**12, 10**12)
    if pick == 2:
        return rng.choice([True, False, None])
    if pick == 3:
        return rng.choice([0.0, -0.5, 1e17, 3.25, math.inf, -math.inf, math.nan, 1 / 3])
    if pick in (4, 5, 6):
        return rng.choice(STRINGS) + str(rng.randrange(100))
    if pick in (7, 8):
        return [_random_data(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = [rng.choice(STRINGS + [1, 22, -3, True, None, 2.5]) for _ in range(rng.randrange(5))]
    return {k: _random_data(rng, depth + 1) for k in keys}


def _same_loaded(a, b) -> bool:  # nan != nan
    return yaml.dump(a, Dumper=DUMPER) == yaml.dump(b, Dumper=DUMPER)


@pytest.mark.parametrize("options", OPTIONS)
def test_dump_writes_the_text_of_yaml_dump(options):
    rng = random.Random(7)
    for _ in range(400):
        data = {"data": _random_data(rng)}
        want = yaml.dump(data, Dumper=DUMPER, **options)
        assert yamlfast.dump(data, **options) == want
        assert _same_loaded(yamlfast.load(want), yaml.load(want, Loader=LOADER))


def test_what_only_pyyaml_handles_goes_to_pyyaml():
    shared = [1, 2]
    data = {"a": shared, "b": shared}  # PyYAML writes an anchor and an alias
    assert yamlfast.dump(data) == yaml.dump(data, Dumper=DUMPER)
    assert yamlfast.dump({"t": (1, 2)}) == yaml.dump({"t": (1, 2)}, Dumper=DUMPER)

    class Name(str):
        pass

    with pytest.raises(yaml.representer.RepresenterError):
        yamlfast.dump({"n": Name("x")})  # a str subclass, which the safe dumper refuses


@pytest.mark.parametrize("text", [
    "a: 0777\nb: 0x1F\nc: 1:30\nd: +12\ne: 1_000\nf: -0\n",
    "a: yes\nb: No\nc: ~\nd: .nan\ne: 1e3\nf: 2024-01-01\n",
    "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
    "a: &l [1, 2]\nb: *l\n",
    "s: !!set {a, b}\nbin: !!binary aGVsbG8=\n",
    "? [1, 2]\n: complex key\n",
    "- 1\n- two\n- {three: 3}\n",
    "",
    "just a string",
])
def test_load_reads_the_values_of_safe_load(text):
    try:
        want = yaml.load(text, Loader=LOADER)
    except yaml.YAMLError as exc:
        with pytest.raises(type(exc)):
            yamlfast.load(text)
        return
    assert yamlfast.load(text) == want


def test_a_syntax_error_is_pyyamls_error():
    with pytest.raises(yaml.YAMLError):
        yamlfast.load("a: [unclosed\n")
