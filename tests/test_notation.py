"""Tests for ddcards.notation (RULES.md §0)."""
from __future__ import annotations

import copy
import dataclasses
import doctest
import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddcards
import ddcards.notation
from ddcards.errors import DdcardsError, InvalidCardError, NotationError
from ddcards.notation import (
    DECK, Card, Rank, Suit, format_cards, format_hand, parse_cards, parse_hand,
)

S, H, D, C = Suit


def test_doctests_run() -> None:
    result = doctest.testmod(ddcards.notation)
    assert result.attempted > 10
    assert result.failed == 0


# --- suits ------------------------------------------------------------------

def test_suit_values_str_and_symbol() -> None:
    assert [int(s) for s in Suit] == [0, 1, 2, 3]
    assert [str(s) for s in Suit] == ["S", "H", "D", "C"]
    assert [s.symbol for s in Suit] == ["♠", "♥", "♦", "♣"]
    assert f"{Suit.H}" == "H"
    assert f"{Suit.H:>2}" == " H"


@pytest.mark.parametrize("text, suit", [
    ("S", S), ("s", S), ("H", H), ("h", H), ("D", D), ("d", D), ("C", C), ("c", C),
    ("♠", S), ("♥", H), ("♦", D), ("♣", C),
    ("♤", S), ("♡", H), ("♢", D), ("♧", C),
    ("♥\ufe0f", H), (" H ", H),
])
def test_suit_letters_and_symbols(text: str, suit: Suit) -> None:
    assert Suit.parse(text) is suit


NATIVE_SUIT_NAMES = {
    S: ["spades", "leaves", "Laub", "Grün", "Grun", "Blatt", "zelené", "zelený", "zelená",
        "zelene", "zeleny", "zelena", "listy", "wino"],
    H: ["hearts", "Herz", "Rot", "červené", "červený", "cervene", "cerveny", "srdce",
        "czerwień", "czerwien"],
    D: ["diamonds", "bells", "Schellen", "kule", "dzwonek", "dzwonki"],
    C: ["clubs", "acorns", "Eichel", "žaludy", "zaludy", "żołądź", "zoladz", "żołędzie",
        "zoledzie"],
}


@pytest.mark.parametrize("name, suit", [(n, s) for s, names in NATIVE_SUIT_NAMES.items() for n in names])
def test_suit_native_names_any_case(name: str, suit: Suit) -> None:
    assert Suit.parse(name) is suit
    assert Suit.parse(name.upper()) is suit
    assert Suit.parse(name.lower()) is suit
    assert Suit.parse(name.title()) is suit


# --- ranks ------------------------------------------------------------------

def test_rank_values_and_str() -> None:
    assert [int(r) for r in Rank] == list(range(6, 15))
    assert [str(r) for r in Rank] == list("6789TJQKA")
    assert Rank.SIX == 6 and Rank.TEN == 10 and Rank.ACE == 14
    assert f"{Rank.TEN}" == "T"


@pytest.mark.parametrize("text, rank", [
    ("6", Rank.SIX), ("7", Rank.SEVEN), ("8", Rank.EIGHT), ("9", Rank.NINE),
    ("T", Rank.TEN), ("t", Rank.TEN), ("10", Rank.TEN), ("X", Rank.TEN), ("x", Rank.TEN),
    ("J", Rank.JACK), ("j", Rank.JACK), ("U", Rank.JACK), ("u", Rank.JACK),
    ("Q", Rank.QUEEN), ("q", Rank.QUEEN), ("O", Rank.QUEEN), ("o", Rank.QUEEN),
    ("K", Rank.KING), ("k", Rank.KING), ("A", Rank.ACE), ("a", Rank.ACE),
])
def test_rank_parse_and_aliases(text: str, rank: Rank) -> None:
    assert Rank.parse(text) is rank


# Names from RULES.md §0 and the languages of the games: Dutch, German, Czech, Polish, English.
RANK_NAMES = {
    Rank.SIX: ["six", "zes", "Sechs", "šestka", "szóstka"],
    Rank.SEVEN: ["seven", "zeven", "Sieben", "sedma", "sedmička", "siódemka"],
    Rank.EIGHT: ["eight", "acht", "osma", "osmička", "ósemka"],
    Rank.NINE: ["nine", "negen", "Neun", "devítka", "dziewiątka"],
    Rank.TEN: ["ten", "tien", "Zehn", "desítka", "dziesiątka"],
    Rank.JACK: ["jack", "knave", "boer", "Bube", "Unter", "spodek", "walet", "niżnik", "niznik"],
    Rank.QUEEN: ["queen", "vrouw", "Dame", "Ober", "svršek", "svrsek", "dama", "wyżnik", "wyznik"],
    Rank.KING: ["king", "heer", "König", "Koenig", "král", "król", "krol"],
    Rank.ACE: ["ace", "aas", "Ass", "Daus", "eso", "as"],
}


@pytest.mark.parametrize("name, rank", [(n, r) for r, names in RANK_NAMES.items() for n in names])
def test_rank_names_any_case(name: str, rank: Rank) -> None:
    for text in (name, name.upper(), name.lower(), name.title(), f" {name} "):
        assert Rank.parse(text) is rank


NEW_SUIT_NAMES = {
    S: ["schoppen", "schop", "Pik", "piky", "pique"],
    H: ["harten", "hart", "kier", "coeur", "cœur"],
    D: ["ruiten", "ruit", "Karo", "káry", "kára", "carreau"],
    C: ["klaveren", "klaver", "Kreuz", "kříže", "trefl", "trèfle"],
}


@pytest.mark.parametrize("name, suit", [(n, s) for s, names in NEW_SUIT_NAMES.items() for n in names])
def test_suit_names_of_the_french_suited_deck(name: str, suit: Suit) -> None:
    assert Suit.parse(name) is suit
    assert Suit.parse(name.upper()) is suit


def test_names_are_words_not_card_notation() -> None:
    # A card is letters: names would make "as" (the Polish ace) and "AS" (ace of spades) collide.
    assert Card.parse("as") == Card(Rank.ACE, S)
    with pytest.raises(InvalidCardError, match="is not a rank"):
        Card.parse("boerH")
    with pytest.raises(InvalidCardError) as info:
        Rank.parse("bor")
    assert "a name such as ten, boer, Unter, spodek, niżnik" in str(info.value)


# --- cards ------------------------------------------------------------------

def test_deck_is_36_distinct_cards_in_suit_rank_order() -> None:
    assert len(DECK) == len(set(DECK)) == 36
    assert list(DECK) == sorted(DECK)
    assert str(DECK[0]) == "6S" and str(DECK[-1]) == "AC"


@pytest.mark.parametrize("card", DECK, ids=str)
def test_every_card_round_trips(card: Card) -> None:
    text = str(card)
    assert len(text) == 2
    assert Card.parse(text) == card
    assert Card.parse(text.lower()) == card
    assert Card.parse(f"{card.rank}{card.suit.symbol}") == card
    assert eval(repr(card), {"Card": Card}) == card


@pytest.mark.parametrize("text, expected", [
    ("TH", "TH"), ("th", "TH"), ("10H", "TH"), ("10h", "TH"), ("XH", "TH"), ("xh", "TH"),
    ("T♥", "TH"), ("10♥", "TH"), ("10♥\ufe0f", "TH"), ("X♡", "TH"),
    ("OH", "QH"), ("oh", "QH"), ("Q♥", "QH"), ("UH", "JH"), ("U♣", "JC"), ("u♧", "JC"),
    ("A♠", "AS"), ("6♢", "6D"), (" 7d ", "7D"),
])
def test_card_aliases(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


def test_card_is_an_immutable_hashable_value() -> None:
    card = Card.parse("TH")
    assert card == Card(Rank.TEN, Suit.H) == Card(10, 1)
    assert card.rank is Rank.TEN and card.suit is Suit.H
    assert Card(10, 1).rank is Rank.TEN  # ints are coerced to the enums
    assert hash(card) == hash(Card.parse("10h"))
    assert len({card, Card.parse("XH"), Card.parse("TS")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = Rank.ACE  # type: ignore[misc]
    with pytest.raises(AttributeError):
        card.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(card, "__dict__")
    assert pickle.loads(pickle.dumps(card)) == card
    assert copy.deepcopy(card) == card and copy.copy(card) == card


def test_a_card_formats_as_its_text_with_a_format_spec() -> None:
    # As Suit and Rank do: a table of cards lines up with f"{card:>3}" (object.__format__ raised TypeError)
    card = Card.parse("TH")
    assert f"{card}" == "TH" and f"{card:>4}|{card:<3}|{card:^4}" == "  TH|TH | TH "
    assert format(card, "") == str(card) and "{:3}".format(Card.parse("6s")) == "6S "


def test_card_order_is_suit_then_rank() -> None:
    assert sorted(parse_cards("AC 6C AS TH 7S 9D")) == list(parse_cards("7S AS TH 9D 6C AC"))
    assert Card.parse("AS") < Card.parse("6H")
    assert Card.parse("6H") > Card.parse("AS")
    assert Card.parse("9H") <= Card.parse("9H") and Card.parse("TH") >= Card.parse("9H")
    with pytest.raises(TypeError):
        Card.parse("AS") < "AS"  # noqa: B015


def test_card_of_is_the_parsed_object_and_equal_to_a_built_card() -> None:
    for card in DECK:
        built = Card(card.rank, card.suit)
        assert Card.of(card.rank, card.suit) is card is Card.parse(str(card))
        assert built == card and hash(built) == hash(card) and built is not card
        assert {built: 1}[card] == 1 and card in {built}
    assert Card(Rank.TEN, H) != Card(Rank.TEN, S) and Card(Rank.TEN, H) != "TH"
    for rank, suit in ((5, 1), (15, 0), (22, 0), (10, 4), ("T", 1)):
        with pytest.raises(InvalidCardError, match="is no card"):
            Card.of(rank, suit)  # type: ignore[arg-type]


def test_format_hand_and_format_cards_read_card_text_and_name_what_is_no_card() -> None:
    # Card text is read as parse_hand and parse_cards read it (an audit found format_hand(["AS", "KS"])
    # an AttributeError, format_hand("AS KS") "card 'S' appears twice", format_cards([5, None]) '5 None').
    assert format_hand(["AS", "KS"]) == format_hand("AS KS") == format_hand(iter(["KS", "AS"])) == "AK..."
    assert format_hand("ak.q..", style="display") == "S: AK  H: Q  D: -  C: -"
    assert format_cards("AS, 10h") == format_cards(["AS", Card.parse("TH")]) == "AS TH"
    with pytest.raises(NotationError, match="card 'TH' appears twice") as info:
        format_hand(["TH", "TH"])
    assert info.value.token == "TH"
    for cards, named in (([None, None], "NoneType None"), ([[1]], "list [1]"), ([5], "int 5")):
        for fmt in (format_hand, format_cards):
            with pytest.raises(NotationError, match=re.escape(f"card must be text like 'TH', got {named}")):
                fmt(cards)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="hand must be text like 'AKT.987..QJ' or a list of cards, got int 5"):
        format_hand(5)  # type: ignore[arg-type]


def test_bytes_are_named_as_bytes_not_read_as_numbers() -> None:
    # b"7S 8D" is iterable, by its byte values: parse_cards, format_cards and format_hand said
    # "card must be text like 'TH', got int 55" of its first byte (parse_hand named the bytes)
    for func in (parse_cards, format_cards, format_hand, parse_hand):
        for data in (b"7S 8D", bytearray(b"7S"), memoryview(b"7S")):
            with pytest.raises(ddcards.NotationTypeError, match=f"must be text like .*, got {type(data).__name__}"):
                func(data)  # type: ignore[arg-type]


def test_the_quick_reading_of_a_card_reads_as_the_full_one() -> None:
    # Card.parse answers the canonical text and its lower case from a table first: the same
    # objects as reading them rank by rank.
    texts = ddcards.notation._BY_TEXT
    assert len(texts) == 72
    for text, card in texts.items():
        assert str(card) == text.upper()
        assert Card.parse(f" {text} ") is card          # (the full reading: not in the table)
    assert Card.parse("10h") is Card.parse("Th") is Card.parse("TH") is Card.parse("T♥")


# --- card lists ---------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("7S 8D", "7S 8D"),
    ("7S,8D", "7S 8D"),
    ("7S, 8D,TH", "7S 8D TH"),
    ("  7s\t8d\n10h  ", "7S 8D TH"),
    (["7S", "8d", "10♥"], "7S 8D TH"),
    (("OH", Card.parse("UC")), "QH JC"),
    (iter(["AS"]), "AS"),
    ("AH 7S AH", "AH 7S AH"),  # order and duplicates are kept
    ("", ""),
    ("  ,  ", ""),
    ([], ""),
])
def test_parse_and_format_cards(value: object, expected: str) -> None:
    cards = parse_cards(value)  # type: ignore[arg-type]
    assert isinstance(cards, tuple)
    assert format_cards(cards) == expected


def test_parse_cards_empty_is_empty_tuple() -> None:
    assert parse_cards("") == ()
    assert format_cards(()) == ""


# --- hands --------------------------------------------------------------------

@pytest.mark.parametrize("text, cards, canonical", [
    ("AKT.987..QJ", "AS KS TS 9H 8H 7H QC JC", "AKT.987..QJ"),
    ("...", "", "..."),
    ("-.-.-.-", "", "..."),
    ("A10.-.ou.6", "AS TS QD JD 6C", "AT..QJ.6"),
    ("10.10.10.10", "TS TH TD TC", "T.T.T.T"),
    ("x9.J1087..", "TS 9S JH TH 8H 7H", "T9.JT87.."),
    ("6789TJQKA...", "6S 7S 8S 9S TS JS QS KS AS", "AKQJT9876..."),
    ("..akq.", "AD KD QD", "..AKQ."),
    (" QJ.-..A ", "QS JS AC", "QJ...A"),
])
def test_parse_hand(text: str, cards: str, canonical: str) -> None:
    hand = parse_hand(text)
    assert format_cards(hand) == cards  # in the order written
    assert format_hand(hand) == canonical
    assert parse_hand(canonical) == tuple(sorted(hand, key=lambda c: (c.suit, -c.rank)))


DISPLAY_FORMS = [
    # the form `ddcards solve` and str(Position) print
    ("S: AKT  H: 987  D: -  C: QJ", "AKT.987..QJ"),
    ("S: AT  H: AKQ9  D: AT  C: 87", "AT.AKQ9.AT.87"),
    ("S: -  H: -  D: -  C: -", "..."),
    # looser spacing, symbols and names as labels, any order, ranks spaced or aliased, empty voids
    ("S:AKT H:987 D:- C:QJ", "AKT.987..QJ"),
    ("♠: A K 10  ♥: 9 8 7  ♦: -  ♣: O U", "AKT.987..QJ"),
    ("C: QJ  D: -  H: 987  S: AKT", "AKT.987..QJ"),
    ("schoppen: AKT, harten: 987, ruiten: -, klaveren: QJ", "AKT.987..QJ"),
    ("S: akt  H: 987  D:  C: qj", "AKT.987..QJ"),
    # commas read as spaces between suits too, not only within a suit's ranks (§0.4 rule 4)
    ("S:AKT,H:987,D:-,C:QJ", "AKT.987..QJ"),
    ("♠:A,K,10,♥:9,8,7,♦:,♣:O,U", "AKT.987..QJ"),
]


@pytest.mark.parametrize("text, pbn", DISPLAY_FORMS)
def test_parse_hand_display_form(text: str, pbn: str) -> None:
    hand = parse_hand(text)
    assert format_hand(hand) == pbn
    assert set(hand) == set(parse_hand(pbn))


@pytest.mark.parametrize("text, suit, written, rule", [
    ("S: AK  H: -  D: Q7  C: - Z", "C", "- Z", "§0.4 rule 4"),
    ("S: AK  H: --  D: Q7  C: -", "H", "--", "§0.4 rule 4"),
    ("AK.-7.Q.", "H", "-7", "§0.4 rule 1"),
])
def test_a_void_mark_beside_ranks_is_named_as_such(text: str, suit: str, written: str, rule: str) -> None:
    """'-' with ranks beside it is not read as a bad rank '-': the error shows the suit as written."""
    with pytest.raises(NotationError) as caught:
        parse_hand(text)
    assert str(caught.value).startswith(
        f"suit {suit} of hand {text!r} is {written!r}: '-' marks a void and stands alone")
    assert caught.value.token == written
    assert rule in caught.value.rule


@pytest.mark.parametrize("value, pbn", [
    ("AS KS TS 9H 8H 7H QC JC", "AKT.987..QJ"),
    ("QC, JC, 9H 8h 7H AS KS 10S", "AKT.987..QJ"),
    ("AS", "A..."),
    (["AS", "KS", "TS", "9H", "8H", "7H", "QC", "JC"], "AKT.987..QJ"),
    ((Card.parse("QC"), "JC", "AS"), "A...Q J".replace(" ", "")),
    (iter(["TD"]), "..T."),
    ([], "..."),
])
def test_parse_hand_card_list(value: object, pbn: str) -> None:
    assert format_hand(parse_hand(value)) == pbn  # type: ignore[arg-type]


def test_parse_hand_card_list_keeps_the_order_written() -> None:
    assert format_cards(parse_hand("QC AS 9H")) == "QC AS 9H"
    assert format_cards(parse_hand("C: Q  S: A  H: 9  D: -")) == "QC AS 9H"


@given(st.sets(st.sampled_from(DECK)))
def test_every_hand_form_round_trips(cards: set[Card]) -> None:
    display = format_hand(cards, style="display")
    assert set(parse_hand(display)) == cards
    assert format_hand(parse_hand(display), style="display") == display
    if cards:
        assert set(parse_hand(format_cards(cards))) == cards
        assert set(parse_hand([str(c) for c in cards])) == cards


def test_format_hand_display() -> None:
    assert format_hand(parse_cards("QC 9H AS JC 8H TS 7H KS"), style="display") == "S: AKT  H: 987  D: -  C: QJ"
    assert format_hand([], style="display") == "S: -  H: -  D: -  C: -"
    with pytest.raises(ValueError, match="style is 'pbn' or 'display'"):
        format_hand([], style="bridge")  # type: ignore[arg-type]


def test_format_hand_orders_suits_and_ranks() -> None:
    assert format_hand(parse_cards("6C QC 9H AS JC 8H TS 7H KS")) == "AKT.987..QJ6"
    assert format_hand(DECK) == ".".join(["AKQJT9876"] * 4)
    assert format_hand(set(parse_cards("TD 9D"))) == "..T9."
    assert format_hand([]) == "..."


@given(st.sets(st.sampled_from(DECK)))
def test_hand_round_trips_any_subset_of_the_deck(cards: set[Card]) -> None:
    text = format_hand(cards)
    assert text.count(".") == 3
    parsed = parse_hand(text)
    assert len(parsed) == len(cards)
    assert set(parsed) == cards
    assert format_hand(parsed) == text


@given(st.lists(st.sampled_from(DECK)))
def test_card_list_round_trips(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == tuple(cards)
    assert parse_cards(", ".join(map(str, cards))) == tuple(cards)


# --- errors -------------------------------------------------------------------

@pytest.mark.parametrize("func, text, error, token, fragment", [
    (Card.parse, "ZH", InvalidCardError, "ZH",
     "unknown card 'ZH': 'Z' is not a rank (docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A, aliases 10 X U O)"),
    (Card.parse, "5H", InvalidCardError, "5H", "'5' is not a rank"),
    (Card.parse, "1H", InvalidCardError, "1H", "'1' is not a rank"),
    (Card.parse, "AZ", InvalidCardError, "AZ", "'Z' is not a suit (docs/RULES.md §0.1 rule 1: suits S H D C"),
    (Card.parse, "AHH", InvalidCardError, "AHH", "'HH' is not a suit"),
    (Card.parse, "Ahearts", InvalidCardError, "Ahearts", "'hearts' is a suit's name, and a card writes its suit"),
    (Card.parse, "T H", InvalidCardError, "T H", "a card is one word, no spaces"),
    (Card.parse, "ten of hearts", InvalidCardError, "ten of hearts", "a card is one word, no spaces"),
    # Compatibility forms (fullwidth, circled letters) are not suits: in cards and suits alike.
    (Suit.parse, "Ｈ", InvalidCardError, "Ｈ", "unknown suit 'Ｈ'"),
    (Suit.parse, "Ⓗ", InvalidCardError, "Ⓗ", "unknown suit 'Ⓗ'"),
    (Card.parse, "AＨ", InvalidCardError, "AＨ", "'Ｈ' is not a suit"),
    (Card.parse, "QH/S", InvalidCardError, "QH/S", "a suit after '/' is named only by Prší's Ober"),
    (Card.parse, "A", InvalidCardError, "A", "no suit (docs/RULES.md §0.3 rule 1: a card is a rank then a suit"),
    (Card.parse, "10", InvalidCardError, "10", "no suit"),
    (Card.parse, "", InvalidCardError, "", "empty card"),
    (Rank.parse, "5", InvalidCardError, "5", "unknown rank '5' (docs/RULES.md §0.2 rules 1 and 3: ranks 6 7 8 9 T J Q K A"),
    (Rank.parse, "", InvalidCardError, "", "unknown rank ''"),
    (Rank.parse, "TT", InvalidCardError, "TT", "unknown rank 'TT'"),
    (Suit.parse, "Z", InvalidCardError, "Z", "unknown suit 'Z' (docs/RULES.md §0.1 rule 2: suits S H D C"),
    (Suit.parse, "spadez", InvalidCardError, "spadez", "unknown suit 'spadez'"),
    (Suit.parse, "", InvalidCardError, "", "unknown suit ''"),
    (parse_cards, "7S ZH", InvalidCardError, "ZH", "unknown card 'ZH'"),
    (parse_cards, ["7S", "8X"], InvalidCardError, "8X", "unknown card '8X': 'X' is not a suit"),
    (parse_hand, "AK.Q", NotationError, "AK.Q",
     "hand 'AK.Q' has 2 suits (docs/RULES.md §0.4 rule 1: a hand lists 4 suits S.H.D.C separated by 3 dots)"),
    (parse_hand, "AK", InvalidCardError, "AK", "hand 'AK': unknown card 'AK': 'K' is not a suit"),
    (parse_hand, "", NotationError, "", "hand '' is empty: write '...' for a hand without cards"),
    (parse_hand, "  ", NotationError, "  ", "is empty"),
    (parse_hand, "AS KS ZZ", InvalidCardError, "ZZ", "hand 'AS KS ZZ': unknown card 'ZZ'"),
    (parse_hand, "AS, KS AS", NotationError, "AS", "card 'AS' appears twice in hand 'AS, KS AS'"),
    (parse_hand, "S: AT  H: AKQ9", NotationError, "S: AT  H: AKQ9",
     "hand 'S: AT  H: AKQ9' does not name suit D, C (docs/RULES.md §0.4 rule 4: the display form names each suit once"),
    (parse_hand, "S: A  H: K  S: Q  D: -  C: -", NotationError, "S", "names suit S twice"),
    (parse_hand, "hand S: A  H: -  D: -  C: -", NotationError, "hand", "'hand' comes before the first suit"),
    (parse_hand, "AKT,S: A  H: -  D: -  C: -", NotationError, "AKT,", "'AKT,' comes before the first suit"),
    (parse_hand, "S: A  Z: -  D: -  C: -", InvalidCardError, "Z", "unknown suit 'Z'"),
    (parse_hand, "S: AZ  H: -  D: -  C: -", InvalidCardError, "Z", "unknown rank 'Z' in suit S of hand"),
    (parse_hand, "S: AA  H: -  D: -  C: -", NotationError, "AS", "card 'AS' appears twice"),
    (parse_hand, "S: A-  H: -  D: -  C: -", NotationError, "A-",
     "suit S of hand 'S: A-  H: -  D: -  C: -' is 'A-': '-' marks a void and stands alone"),
    (parse_hand, "A.K.Q.J.T", NotationError, "A.K.Q.J.T", "has 5 suits ("),
    (parse_hand, "AA...", NotationError, "AS", "card 'AS' appears twice in hand 'AA...'"),
    (parse_hand, "T10...", NotationError, "TS", "card 'TS' appears twice in hand 'T10...'"),
    (parse_hand, ".oQ..", NotationError, "QH", "card 'QH' appears twice"),
    (parse_hand, "AZ...", InvalidCardError, "Z", "unknown rank 'Z' in suit S of hand 'AZ...'"),
    (parse_hand, "..5.", InvalidCardError, "5", "unknown rank '5' in suit D"),
    (parse_hand, "1...", InvalidCardError, "1", "unknown rank '1'"),
    (parse_hand, "A-...", NotationError, "A-", "suit S of hand 'A-...' is 'A-': '-' marks a void"),
    (parse_hand, "--...", NotationError, "--", "suit S of hand '--...' is '--': '-' marks a void"),
    (parse_hand, "A K...", InvalidCardError, " ", "unknown rank ' ' in suit S of hand 'A K...'; a dotted hand "
     "writes a suit's ranks together ('AKT.987..QJ'), cards apart are written with their suits ('AS KS TS 9H')"),
    (parse_hand, "AS.KH..", InvalidCardError, "S", "unknown rank 'S'"),
])
def test_bad_text_is_rejected_naming_the_token(func, text, error, token, fragment) -> None:
    with pytest.raises(error) as info:
        func(text)
    assert type(info.value) is error
    assert fragment in str(info.value)
    assert info.value.token == token
    assert info.value.rule and info.value.rule in str(info.value)
    if token:
        assert f"'{token}'" in str(info.value)


@pytest.mark.parametrize("func, value", [
    (Card.parse, None), (Card.parse, 5), (Card.parse, b"TH"),
    (Rank.parse, 10), (Suit.parse, 1), (Suit.parse, ["H"]),
    (parse_hand, None), (parse_hand, 5), (parse_hand, b"AKT.987..QJ"), (parse_hand, ["AS", None]),
    (parse_cards, 5), (parse_cards, None), (parse_cards, [7]), (parse_cards, ["7S", None]),
])
def test_non_text_is_a_notation_error(func, value) -> None:
    with pytest.raises(NotationError, match="must be text") as info:
        func(value)
    # a NotationError, and the TypeError Python raises for a wrong type
    assert type(info.value) is ddcards.NotationTypeError and isinstance(info.value, TypeError)
    assert info.value.token


@pytest.mark.parametrize("rank, suit", [(5, 0), (15, 0), (10, 4), (10, -1), ("T", "H"), (None, None),
                                        (10, True), (10, False), (10.0, 1), (10, 1.0)])
def test_card_constructor_rejects_non_cards(rank, suit) -> None:
    # (True and False are ints to Python, Suit(True) the hearts: Card(10, True) was the TH)
    with pytest.raises(InvalidCardError, match="is no card"):
        Card(rank, suit)
    with pytest.raises(InvalidCardError, match="is no card"):
        Card.of(rank, suit)


def test_a_list_of_suit_groups_is_not_a_hand() -> None:
    # ["AKT", "987", "", "QJ"] is neither a list of cards nor a hand string
    with pytest.raises(InvalidCardError, match="unknown card 'AKT'.*a hand is 'AKT.987..QJ'") as info:
        parse_hand(["AKT", "987", "", "QJ"])
    assert info.value.token == "AKT"


def test_format_hand_rejects_a_card_twice() -> None:
    with pytest.raises(NotationError, match="card 'AS' appears twice") as info:
        format_hand(parse_cards("AS KS AS"))
    assert info.value.token == "AS"


def test_errors_are_value_errors() -> None:
    # Callers may catch ValueError or DdcardsError; nothing else leaks for bad text.  Each text
    # is bad for each parser but three: no cards at all, the rank 10 and the suit ♥.
    good = {("", parse_cards): (), ("10", Rank.parse): Rank.TEN, ("♥", Suit.parse): H}
    for text in ["", "Z", "ZZZ", "..", "10", "♥", "H10", "1O", "♥T", "\x00", "AA...", "A.B.C.D"]:
        for func in (Card.parse, Rank.parse, Suit.parse, parse_cards, parse_hand):
            if (text, func) in good:
                assert func(text) == good[text, func]
                continue
            with pytest.raises(DdcardsError) as info:
                func(text)
            assert isinstance(info.value, ValueError), (text, func)


@given(st.text(max_size=12))
def test_arbitrary_text_never_crashes(text: str) -> None:
    for func in (Card.parse, Rank.parse, Suit.parse, parse_cards, parse_hand):
        try:
            func(text)
        except NotationError:
            pass


@pytest.mark.parametrize("text,count", [("AS KS", 2), ("AS,KS", 2), (" 7S 8D 9H ", 3)])
def test_several_cards_where_one_is_wanted_say_so(text, count):
    with pytest.raises(InvalidCardError) as info:
        Card.parse(text)
    assert str(info.value) == (f"one card expected, got {count}: {text.strip()!r} (docs/RULES.md §0.3 rule 1: a "
                               "card is a rank then a suit, e.g. 'TH' or '10♥')")
    assert info.value.token == text.strip()
    # Text that is not several cards says that a card is one word.
    with pytest.raises(InvalidCardError, match="'A S': a card is one word, no spaces"):
        Card.parse("A S")


def test_parse_of_a_value_is_that_value() -> None:
    # what the API hands out reads back: Position.trump is a Suit, a table's top a Card
    for value in (*Suit, *Rank, *DECK):
        assert type(value).parse(value) is value  # type: ignore[attr-defined]


@pytest.mark.parametrize("game, word, whose", [("marias-seed", "exchange", "Mariasz's exchange of the trump six"),
                                               ("klaverjas", "Draw", "a Prší action"),
                                               ("marias-seed", " pass", "a Prší action")])
def test_another_games_action_in_a_record_of_cards_is_named(game, word, whose):
    """(it was "unknown card 'exchange': 'e' is not a rank")"""
    with pytest.raises(InvalidCardError) as info:
        ddcards.Position.from_dict(dict(ddcards.example(game), played=["7D", word] if game == "klaverjas" else [word]))
    ply = 1 if game == "klaverjas" else 0
    assert str(info.value).startswith(f"played[{ply}]: '{word.strip()}' is no action of this game, whose record "
                                      f"plays cards only (it is {whose}) (docs/RULES.md §0.7 rule 1")
    assert (info.value.token, info.value.field) == (word.strip(), f"played[{ply}]")


@pytest.mark.parametrize("game, word, whose, actions", [
    ("mariasz", "draw", "a Prší action", "actions: cards and 'exchange'"),
    ("mariasz-kiks", "Pass", "a Prší action", "actions: cards and 'exchange'"),
    ("prsi", "exchange", "Mariasz's exchange of the trump six",
     "an action is a card (TH), an Ober naming a suit (QH/S), draw or pass")])
def test_another_games_action_in_a_record_with_actions_of_its_own_is_named(game, word, whose, actions):
    """Mariasz's record of cards and 'exchange' holding 'draw', and Prší's holding 'exchange', said
    "unknown card 'draw': 'd' is not a rank", citing the rule of ranks, as records of cards only
    did before they named the other game's action (an audit)."""
    pos = ddcards.Position.from_dict(ddcards.example(game))
    with pytest.raises(InvalidCardError) as info:
        pos.play(word)
    ply = pos.ply
    assert str(info.value).startswith(f"played[{ply}]: '{word}' is no action of this game (it is {whose}; {actions})")
    assert (info.value.token, info.value.field) == (word, f"played[{ply}]")
    assert "is not a rank" not in str(info.value) and "§0.2" not in info.value.rule
