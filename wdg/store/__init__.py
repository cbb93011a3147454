"""The store: the one persistence layer of wdg (docs/storage.md, docs/architecture.md).

It owns everything a campaign keeps on disk and how it is kept safe — the
segment's files and its commit protocol (:mod:`.segment`, :mod:`.journal`),
the lock and recovery (:mod:`.lock`), the archive of months (:mod:`.months`,
:mod:`.files`, :mod:`.blobs`), hash lists, the chain and seals
(:mod:`.integrity`), delivered reports (:mod:`.delivery`), the order sheets
between months (:mod:`.intake`), the mail records (:mod:`.sent`,
:mod:`.seen`, :mod:`.mailrecords`), the campaign's other folders
(:mod:`.edges`: no link written through), wdg's own changes between months
against the archive (:mod:`.edits`) and the format registry (:mod:`.formats`,
:mod:`.shapes`).

It imports nothing above it: only the base modules (``wdg.errors``,
``wdg.fsio``, ``wdg.yamlfast``, ``wdg.provenance``, ``wdg.procs``,
``wdg.campaign``, ``wdg.rules``' file loader) and the plain data of
``wdg.world`` (state records, codec, addresses, calendar). The month runner,
replay and upgrade (``wdg.engine``), reports, mail and orders live above it
and call it (``tests/test_layers.py`` keeps it so).
"""
