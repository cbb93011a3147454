"""Benchmarks: ``python -m wdg.bench [--quick] [--only NAME]`` (``make bench``).

Measures, on the machine it runs on, the figures of the benchmark issue and
writes them to ``bench/results.json``: load and save of the stress segment,
the month's resolution per step and in total, parsing and checking all
sheets, rendering the result sheets (text, HTML, PDF, with one and two
processes, against WeasyPrint's own time), the three games' speeds and the
month's peak memory. Every figure is the median of several runs. Benchmarks
are not tests: nothing in ``make test`` depends on them. See
``docs/performance.md``.
"""
