"""Diplomacy, contacts and messages ("Der Diplomatiestatus", "Die Kontakte
zwischen Herrschern")."""

from __future__ import annotations

from monthkit import RULES, month


from hypothesis import given, settings
from hypothesis import strategies as st

from wdg.engine.diplomacy import (
    contacts,
    diplomacy_reports,
    hostile,
    may_conquer,
    messages,
    missions,
)
from wdg.engine.events import Event
from wdg.orders.model import Announcement, Message, Sheet
from wdg.world.factory import add_army, add_kingdom, own, small_segment
from wdg.world.state import Contact




def test_meeting_armies_add_both_kingdoms_to_each_other_s_list_at_5():
    """"Königreiche werden, sobald ein Herrscher auf sie getroffen ist, in der
    Liste der diplomatischen Beziehungen ... aufgeführt"; "besteht immer ein
    Diplomatiestatus von 5 (neutral)"."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    add_army(seg, 1, 1, (2, 2))
    add_army(seg, 2, 2, (2, 2))
    m = month(seg)
    contacts(m)
    assert seg.kingdoms[1].diplomacy == {2: 5} and seg.kingdoms[2].diplomacy == {1: 5}
    assert len(m.log.of_kind("contact.met")) == 2
    contacts(m)
    assert len(m.log.of_kind("contact.met")) == 2  # only once


def test_bordering_territories_and_armies_on_foreign_soil_make_contact():
    """"den Heeren und Reichsgebieten anderer Herrscher" begegnen."""
    seg = small_segment()
    for k in (1, 2, 3, 4):
        add_kingdom(seg, k)
    own(seg, 1, (1, 1))
    own(seg, 2, (2, 1))
    own(seg, 3, (6, 5))
    add_army(seg, 1, 4, (6, 5))
    contacts(month(seg))
    assert set(seg.kingdoms[1].diplomacy) == {2}
    assert set(seg.kingdoms[3].diplomacy) == {4}


def test_open_players_learn_the_real_address_and_secret_ones_do_not():
    """"Offener Mitspieler ...: so erhält dessen Herrscher die reale Adresse";
    "Die Adresse eines geheimen Mitspielers wird nicht bekanntgegeben"."""
    seg = small_segment()
    add_kingdom(seg, 1, email="open@example.org")
    add_kingdom(seg, 2, email="secret@example.org")
    seg.kingdoms[1].player.address = "Lindenweg 3"
    seg.kingdoms[2].player.contact = Contact.SECRET
    add_army(seg, 1, 1, (2, 2))
    add_army(seg, 2, 2, (2, 2))
    m = month(seg)
    contacts(m)
    addr = m.log.of_kind("contact.address")
    assert len(addr) == 1 and addr[0].kingdom == 2
    assert addr[0].data["email"] == "open@example.org" and addr[0].data["address"] == "Lindenweg 3"
    secret = m.log.of_kind("contact.secret")
    assert len(secret) == 1 and secret[0].kingdom == 1
    assert "secret@example.org" not in str([e.to_dict() for e in m.log if e.kingdom == 1])


def test_the_contact_texts_call_a_female_ruler_herrscherin():
    """Issue 20: a kingdom with ``herrscherin`` is named with her title."""
    seg = small_segment()
    add_kingdom(seg, 1, email="open@example.org")
    add_kingdom(seg, 2, email="secret@example.org")
    seg.kingdoms[1].herrscherin = seg.kingdoms[2].herrscherin = True
    seg.kingdoms[2].player.contact = Contact.SECRET
    add_army(seg, 1, 1, (2, 2))
    add_army(seg, 2, 2, (2, 2))
    m = month(seg)
    contacts(m)
    name1, name2 = seg.kingdoms[1].name, seg.kingdoms[2].name
    assert m.log.of_kind("contact.address")[0].why == \
        f"Die Herrscherin von {name1} ist offene Mitspielerin"
    assert m.log.of_kind("contact.secret")[0].why.startswith(
        f"Die Herrscherin von {name2} ist geheime Mitspielerin; Kontakt nur über")


def test_city_states_have_no_diplomacy():
    """"Zu Stadtstaaten können keine diplomatischen Beziehungen aufgenommen werden.\""""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_kingdom(seg, 9, city_state=True)
    own(seg, 9, (2, 2))
    add_army(seg, 1, 1, (2, 2))
    contacts(month(seg))
    assert seg.kingdoms[1].diplomacy == {} and seg.kingdoms[9].diplomacy == {}
    assert may_conquer(seg, RULES, 1, 9)


def test_city_states_win_neighbouring_gemarks_by_mission():
    """"Stadtstaaten können auf dem Wege der Missionierung ... neue Gemarken in
    ihr Königreich aufnehmen" (mission_chance)."""
    grown = 0
    for seed in range(100):
        seg = small_segment()
        add_kingdom(seg, 9, city_state=True)
        own(seg, 9, (3, 3))
        m = month(seg, seed=seed)
        missions(m)
        grown += int((seg.owner == 9).sum()) - 1
    assert 5 < grown < 30


def test_a_message_to_a_kingdom_not_on_the_list_is_not_delivered():
    """"Eine Kontaktaufnahme ... ist nur indirekt, also über Botschaften möglich,
    die vom Segmentleiter weitergeleitet werden" — only between kingdoms that met."""
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: 5})
    add_kingdom(seg, 2, diplomacy={1: 5})
    add_kingdom(seg, 3)
    sheet = Sheet(kingdom=1, messages=[Message(2, "Friede sei mit Euch", 20),
                                       Message(3, "Wer seid Ihr?", 25)])
    m = month(seg, sheets={1: sheet})
    messages(m)
    delivered = m.log.of_kind("message.delivered")
    assert [(e.kingdom, e.data["from"]) for e in delivered] == [(2, 1)]
    held = m.log.of_kind("message.held")
    assert held[0].kingdom == 1 and held[0].line == 25 and "Liste" in held[0].why


def test_the_sender_learns_that_a_message_was_forwarded():
    """Every line of a sheet is answered to its writer: a forwarded BOTSCHAFT
    gives the sender ``message.sent`` on its line (the text goes to the receiver)."""
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: 5})
    add_kingdom(seg, 2, diplomacy={1: 5})
    m = month(seg, sheets={1: Sheet(kingdom=1, messages=[Message(2, "Friede sei mit Euch", 20)])})
    messages(m)
    sent = m.log.of_kind("message.sent")
    assert [(e.kingdom, e.line, e.data["to"]) for e in sent] == [(1, 20, 2)]


def test_an_announcement_with_an_email_address_is_held_back():
    """"reale Namen und Adressen der Mitspieler, die in Botschaften und
    Bekanntmachungen grundsätzlich nicht erlaubt sind ... wird der Segmentleiter
    weder verkünden noch weiterbefördern"."""
    seg = small_segment()
    add_kingdom(seg, 1)
    sheet = Sheet(kingdom=1, announcements=[
        Announcement("Schreibt mir an herrscher@mail.example.com", 30),
        Announcement("Das Reich des Nordens grüßt alle Völker! 10000 Krieger stehen bereit.", 31)])
    m = month(seg, sheets={1: sheet})
    messages(m)
    held = m.log.of_kind("announcement.held")
    assert len(held) == 1 and held[0].line == 30 and "E-Mail" in held[0].why
    published = m.log.of_kind("announcement.published")
    assert len(published) == 1 and published[0].public and published[0].line == 31


def test_real_names_phone_numbers_and_links_are_held_back():
    """The same rule for names, telephone numbers and links."""
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: 5})
    add_kingdom(seg, 2, diplomacy={1: 5})
    seg.kingdoms[2].player.name = "Erika Mustermann"
    texts = ["Grüße an Erika Mustermann", "Ruf an: 0511 1234567", "Siehe www.wdg-karte.de",
             "Besucht https://example.org/x"]
    sheet = Sheet(kingdom=1, messages=[Message(2, t, i) for i, t in enumerate(texts, 1)])
    m = month(seg, sheets={1: sheet})
    messages(m)
    assert len(m.log.of_kind("message.held")) == 4


def test_statuses_1_to_3_allow_attack_and_only_1_to_2_conquest():
    """The rule's table: "1, 2 Fremde Gemarken können erobert werden; 1, 2, 3
    Angriff auf fremde Heere möglich"."""
    for s in range(1, 10):
        seg = small_segment()
        add_kingdom(seg, 1, diplomacy={2: s})
        add_kingdom(seg, 2, diplomacy={1: 9})
        assert hostile(seg, RULES, 1, 2) == (s <= 3) == hostile(seg, RULES, 2, 1)
        assert may_conquer(seg, RULES, 1, 2) == (s <= 2)


def test_friends_receive_automatic_reports():
    """"8, 9 Automatischer Bericht über die eigene Soldatenzahl und
    Gemarkenzahl"; "9 ... über die eigenen Steuereinnahmen und die Höhe des
    Reichsschatzes"; "Automatische Berichte erhält das andere Königreich"."""
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: 9, 3: 8, 4: 7}, treasury=12_345)
    for k in (2, 3, 4):
        add_kingdom(seg, k, diplomacy={1: 5})
    own(seg, 1, (0, 0), (1, 0), (2, 0))
    add_army(seg, 1, 1, (0, 0), units=700)
    m = month(seg)
    m.emit(Event("tax.gemarks", kingdom=1, gold=4000, ledger="tax"))
    diplomacy_reports(m)
    reports = {e.kingdom: e.data for e in m.log.of_kind("diplomacy.report")}
    assert set(reports) == {2, 3}
    assert reports[3] == {"from": 1, "status": 8, "soldiers": 700, "gemarks": 3}
    assert reports[2]["taxes"] == 4000 and reports[2]["treasury"] == 12_345


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüß ,!?ABCDEFGHIJ", max_size=80))
def test_plain_in_game_prose_passes_the_content_check(text):
    """Text without digits, dots, @ or names is never held back."""
    seg = small_segment()
    add_kingdom(seg, 1)
    m = month(seg, sheets={1: Sheet(kingdom=1, announcements=[Announcement(text, 1)])})
    messages(m)
    assert m.log.of_kind("announcement.published")
