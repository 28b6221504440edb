"""Background memories of the retrieval benchmark: what fills a user's memory besides the
topics the queries ask about (people met, trips, tickets, gifts), so that every legal set holds
many plausible but wrong items. Keys carry a running number, so one user never holds two
versions of one of them by accident; no text here carries a code a query looks for
(``E####``, ``ORD-#####``, tickers)."""

from __future__ import annotations

import random

from bench.retrieval.topics import SLOTS, fill

WORDS: dict[str, tuple[str, ...]] = {
    "company": ("Northwind", "Contoso", "Initech", "Globex Shipping", "Umbrella Labs",
                "Stark Freight", "Wayne Logistics", "Acme Paper", "Hooli", "Vandelay Imports"),
    "restaurant": ("Casa Lupo", "The Copper Pot", "Sakura Tei", "Osteria Nove", "Blue Lantern",
                   "Tasca do Chico", "Green Fig", "Bistro Amsel"),
    "dish": ("grilled octopus", "mushroom risotto", "ramen", "lamb tagine", "pasteis de nata",
             "duck confit", "falafel plate", "cheesecake"),
    "title": ("The Left Hand of Darkness", "Sapiens", "The Remains of the Day", "Dune",
              "Thinking, Fast and Slow", "The Overstory", "Middlemarch", "Project Hail Mary"),
    "item": ("a leather notebook", "noise-cancelling headphones", "a cast-iron pan",
             "a board game", "a bonsai kit", "concert tickets", "a fountain pen"),
    "product": ("invoicing", "mobile app", "analytics dashboard", "partner portal",
                "recommendation engine", "data warehouse"),
    "followup": ("pricing", "the security review", "data retention", "the rollout plan",
                 "training sessions", "the contract renewal"),
    "component": ("the search bar", "the upload dialog", "push notifications", "the dark mode",
                  "the settings page", "report scheduling"),
    "problem": ("is slow on large accounts", "loses its state after a refresh",
                "shows stale numbers", "ignores the locale", "crashes on old tablets"),
    "year": ("2019", "2021", "2022", "2023", "2024"),
    "course": ("a pottery class", "an Italian course", "a first-aid course",
               "a data science bootcamp", "a sailing licence course"),
}

# (key prefix, template): the key gets a running number per user.
BACKGROUND: tuple[tuple[str, str], ...] = (
    ("contact", "{person} from {company} prefers calls after {h1}"),
    ("restaurant", "Liked {restaurant} in {city}, especially the {dish}"),
    ("trip", "Trip to {city} in {month} {year}, stayed at a {chain} hotel"),
    ("book", "Wants to read {title} next"),
    ("gift", "Bought {item} as a present for {person}"),
    ("meeting", "Met {person} from {company} about the {product}; follow up on {followup}"),
    ("bug", "Reported that {component} {problem}"),
    ("course", "Signed up for {course} in {city}"),
    ("visit", "Visited {company} in {city} on {date1}"),
    ("dinner", "Dinner with {person} at {restaurant} on a {weekday}"),
)


def background(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """``n`` (key, value) pairs of background memory for one user, keys unique."""
    out = []
    for i in range(n):
        prefix, template = BACKGROUND[rng.randrange(len(BACKGROUND))]
        fixed = {name: rng.choice(choices) for name, choices in WORDS.items()
                 if "{" + name + "}" in template}
        out.append((f"{prefix}.{i:04d}", fill(template, rng, fixed)))
    return out


assert not set(WORDS) & set(SLOTS), "a slot name is defined twice"
