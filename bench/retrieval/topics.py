"""The words of the retrieval benchmark's memories: what users tell an agent, and how they ask
for it later in other words.

Each topic is one memory key a user holds once (``travel.seat``): stored values are filled
from the slot lists below, and the questions that should find it (``asked``) share as few words
with the stored text as a person would (a paraphrase, not a copy). Every user holds every
topic, so each user's memory has near-duplicates in every other user's scope: a read that ranks
first and filters afterwards loses the asker's own memory among them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

SLOTS: dict[str, tuple[str, ...]] = {
    "seat": ("an aisle", "a window", "an exit-row", "a front-row"),
    "hours": ("three", "four", "five", "six", "eight"),
    "allergen": ("peanuts", "shellfish", "sesame", "gluten", "dairy"),
    "diet": ("Vegetarian", "Vegan", "Pescatarian", "Halal", "Kosher"),
    "num": tuple(str(n) for n in range(3, 240, 7)),
    "street": ("Elm Street", "Harbour Road", "Linden Avenue", "Mill Lane", "Station Square",
               "Kastanienallee", "Rua Augusta", "Oak Boulevard", "Canal Walk", "Birch Court"),
    "city": ("Lisbon", "Denver", "Osaka", "Leipzig", "Toronto", "Porto", "Austin", "Lyon",
             "Krakow", "Bergen", "Valencia", "Adelaide"),
    "h1": ("8:00", "9:00", "9:30", "10:00", "11:00"),
    "h2": ("15:00", "16:00", "16:30", "17:00", "18:00"),
    "tz": ("CET", "PST", "JST", "EST", "UTC"),
    "theme": ("Solarized Dark", "Gruvbox", "Dracula", "One Light", "Nord", "Monokai"),
    "lang": ("German", "Spanish", "French", "Portuguese", "Japanese", "Polish"),
    "channel": ("Slack", "Signal", "email", "Microsoft Teams", "Telegram"),
    "card": ("Visa", "Amex", "Mastercard"),
    "digits4": tuple(f"{n:04d}" for n in range(1103, 9999, 377)),
    "chain": ("Marriott", "Hilton", "Hyatt", "Accor", "Radisson"),
    "coffee": ("flat white", "oat-milk latte", "double espresso", "cortado", "cold brew"),
    "pet": ("beagle", "tabby cat", "parrot", "border collie", "rabbit"),
    "name": ("Biscuit", "Luna", "Pepper", "Milo", "Olive", "Juniper", "Nacho", "Willow"),
    "month": ("January", "March", "May", "July", "September", "November"),
    "day": tuple(str(n) for n in range(2, 29, 3)),
    "os": ("Arch Linux", "macOS Sonoma", "Windows 11", "Ubuntu 24.04", "Fedora"),
    "run": ("6:30", "7:00", "7:15", "5:45"),
    "car": ("a blue Tesla Model 3", "a grey Volvo V60", "a red Mini Cooper",
            "a white Toyota Prius", "a green Skoda Octavia"),
    "drug": ("penicillin", "ibuprofen", "aspirin", "codeine", "sulfa drugs"),
    "genre": ("jazz", "lo-fi beats", "baroque music", "techno", "film soundtracks"),
    "person": ("Maria Costa", "Tom Becker", "Aiko Tanaka", "Liam O'Brien", "Sara Nowak",
               "Diego Ruiz", "Nina Berg", "Omar Haddad"),
    "relation": ("sister", "husband", "wife", "brother", "neighbour", "father"),
    "amount": ("500", "1,000", "2,500", "5,000", "750"),
    "date1": ("3 August", "14 July", "22 December", "1 April", "9 October"),
    "date2": ("17 August", "28 July", "5 January", "15 April", "23 October"),
    "layout": ("Dvorak", "Colemak", "QWERTZ", "AZERTY"),
    "board": ("a split ergonomic", "a tenkeyless mechanical", "a low-profile wireless"),
    "books": ("science fiction", "history", "crime novels", "poetry", "biographies"),
    "commute": ("by bike", "on the commuter train", "by tram", "on foot", "by ferry"),
    "team": ("payments", "search", "mobile", "data platform", "billing", "identity"),
    "size": ("four", "six", "nine", "twelve"),
    "field": ("physics", "economics", "linguistics", "mechanical engineering", "biology"),
    "uni": ("TU Munich", "the University of Porto", "McGill", "Kyoto University", "ETH Zurich"),
    "club": ("FC Porto", "Borussia Dortmund", "Celtic", "Ajax", "Boca Juniors"),
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "plant": ("tomatoes", "orchids", "basil", "bonsai trees", "succulents"),
    "instrument": ("cello", "piano", "bass guitar", "violin", "drums"),
    "sport": ("climbing", "swimming", "tennis", "rowing", "judo"),
    "airline": ("TAP", "Lufthansa", "KLM", "Air Canada", "ANA"),
    "font": ("14-point", "16-point", "18-point", "large-print"),
    "editor": ("Neovim", "VS Code", "IntelliJ", "Emacs", "Sublime Text"),
}

SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Topic:
    key: str
    work: bool  # held in the user's project scope (user and project), else the user's own
    stored: tuple[str, ...]  # templates of the stored value
    asked: tuple[str, ...]  # paraphrased questions that should find it


TOPICS: tuple[Topic, ...] = (
    Topic("travel.seat", False, ("Prefers {seat} seat on flights longer than {hours} hours",
                                 "Always books {seat} seat when the flight is over {hours} hours"),
          ("where do they like to sit on a plane", "airplane seating choice")),
    Topic("diet.restriction", False, ("{diet}, and allergic to {allergen}",
                                      "Eats {diet} only; {allergen} causes a severe reaction"),
          ("what food must we avoid when ordering lunch for them", "dietary needs for catering")),
    Topic("shipping.address", False, ("Ship orders to {num} {street}, {city}",
                                      "Deliveries go to {num} {street} in {city}"),
          ("where should packages be delivered", "which location do parcels get sent to")),
    Topic("meeting.hours", True, ("Only books meetings between {h1} and {h2} {tz}",
                                  "Calls are fine from {h1} to {h2} {tz}, never later"),
          ("when is a good time to schedule a call with them", "availability window for a sync")),
    Topic("editor.theme", True, ("Uses the {theme} colour scheme in {editor}",
                                 "Runs {editor} with the {theme} theme"),
          ("which look does their code editor have", "what palette is their IDE set to")),
    Topic("reply.language", False, ("Wants answers written in {lang}",
                                    "Please reply in {lang} from now on"),
          ("what language should responses be in", "which tongue do they want to be addressed in")),
    Topic("contact.channel", False, ("Reach them on {channel} rather than by phone",
                                     "Prefers {channel} messages, no phone calls"),
          ("best way to get in touch", "how should we contact them")),
    Topic("payment.card", False, ("Pays with the corporate {card} ending in {digits4}",
                                  "Company {card} card, last four {digits4}, for purchases"),
          ("which card is used to pay for things", "what do they charge expenses to")),
    Topic("hotel.chain", False, ("Books {chain} hotels close to the venue",
                                 "Stays at {chain} properties when travelling"),
          ("which accommodation brand do they pick", "where do they sleep on business trips")),
    Topic("coffee.order", False, ("Drinks a {coffee} every morning", "Morning order: {coffee}"),
          ("what hot beverage should we get them", "their usual caffeine fix")),
    Topic("pet", False, ("Has a {pet} named {name}", "Lives with a {pet} called {name}"),
          ("what animal lives at their home", "do they have a companion animal")),
    Topic("birthday", False, ("Birthday is on {month} {day}", "Born on {day} {month}"),
          ("when do they celebrate turning a year older", "date of birth")),
    Topic("laptop.os", True, ("Develops on {os}", "Their work laptop runs {os}"),
          ("which operating system is on their computer", "what platform does their machine use")),
    Topic("exercise", False, ("Goes running at {run} before work", "Jogs every day at {run}"),
          ("what is their workout routine", "morning fitness habit")),
    Topic("car", False, ("Drives {car}", "Owns {car}"),
          ("what vehicle do they have", "which automobile is theirs")),
    Topic("medication.allergy", False, ("Cannot take {drug}: it gives a rash",
                                        "Reacts badly to {drug}"),
          ("which medicines trigger a reaction", "drug intolerance")),
    Topic("focus.music", True, ("Listens to {genre} while coding", "Puts on {genre} to focus"),
          ("what do they play in the background to concentrate", "soundtrack for deep work")),
    Topic("emergency.contact", False, ("Emergency contact is {person}, their {relation}",
                                       "In an emergency call {person} ({relation})"),
          ("who should be called if something happens to them", "next of kin to notify")),
    Topic("purchase.limit", True, ("Needs approval for purchases above {amount} euros",
                                   "Spending over {amount} EUR must be signed off"),
          ("what is the spending threshold", "how much can they buy without sign-off")),
    Topic("vacation", False, ("On leave from {date1} to {date2}",
                              "Out of office {date1} until {date2}"),
          ("when are they away on holiday", "time off dates")),
    Topic("keyboard", True, ("Types on {board} keyboard with the {layout} layout",
                             "Uses {layout} on {board} board"),
          ("what is their typing setup", "which keys arrangement do they use")),
    Topic("reading", False, ("Reads mostly {books}", "Enjoys {books} in the evenings"),
          ("what kind of books do they like", "favourite literature")),
    Topic("commute", False, ("Commutes {commute}", "Gets to the office {commute}"),
          ("how do they travel to work", "their way into the office")),
    Topic("team", True, ("Leads the {team} team of {size} engineers",
                         "Manages {size} people on {team}"),
          ("which group do they manage", "who reports to them")),
    Topic("education", False, ("Studied {field} at {uni}", "Has a degree in {field} from {uni}"),
          ("what is their academic background", "where did they go to university")),
    Topic("football", False, ("Supports {club}", "Big {club} fan"),
          ("which soccer side do they cheer for", "favourite club")),
    Topic("report.day", True, ("Send the weekly status report every {weekday}",
                               "Wants the status summary on {weekday}s"),
          ("when should the progress update go out", "which day do they expect the summary")),
    Topic("garden", False, ("Grows {plant} on the balcony", "Spends weekends tending {plant}"),
          ("what do they cultivate at home", "gardening hobby")),
    Topic("instrument", False, ("Plays the {instrument} in an amateur orchestra",
                                "Practises {instrument} most evenings"),
          ("which musical instrument do they play", "music they make themselves")),
    Topic("airline", False, ("Flies {airline} whenever possible, has status there",
                             "Loyal to {airline} for flights"),
          ("which carrier should flights be booked with", "preferred air company")),
    Topic("font.size", True, ("Needs documents in {font} type", "Asks for {font} font in slides"),
          ("how big should text be in what we send them", "accessibility needs for documents")),
    Topic("sport", False, ("Does {sport} twice a week", "Trains {sport} on weekends"),
          ("what athletic activity do they practise", "their competitive hobby")),
)

TOPIC = {t.key: t for t in TOPICS}

# Stored once per user (user scope), the subject of near-miss exact-code queries.
ISSUE = ("Checkout fails with error {code} when a coupon is combined with store credit",
         "Login loop ends in {code} after the password reset",
         "Export to CSV stops at 10,000 rows with {code}",
         "Payment page shows {code} on Safari only",
         "Nightly sync aborts with {code} after the schema change",
         "Invoice PDF renders blank and logs {code}")
ORDER = ("Order {code} arrived damaged; a replacement was requested",
         "Order {code} is waiting for the customs paperwork",
         "Refund for order {code} was promised within ten days")
WATCH = ("Watching {code} ahead of its earnings call", "Wants alerts when {code} moves 5%")
# Held as candidates (a model's guess, not the user's word): only legal when asked for.
GUESS: tuple[tuple[str, str, str], ...] = (
    ("guess.hobby", "Probably enjoys sailing, judging from weekend photos",
     "did they mention anything about boats or sailing"),
    ("guess.pet_food", "Might buy grain-free pet food, guessed from one receipt",
     "grain-free food purchases"),
    ("guess.relocation", "May be planning a move to Scandinavia, inferred from searches",
     "are they thinking about moving to the Nordics"),
)
# Expired (a TTL in the past) beside the permanent memory that answers now.
BADGE = ("Office badge PIN is {digits4}", "the PIN for the office door badge")
TEMP_BADGE = ("Temporary visitor badge code {digits4}, valid this week only",
              "temporary visitor badge code")
# Business facts from two systems that disagree: a conflict set (written through ``remember``).
PLAN = ("{tier} plan with {seats} seats", "what subscription tier is the account on")
TIERS = ("Enterprise", "Business", "Team", "Starter")

# Project memories (the project's scope): one of each per project.
PROJECT: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("release.date", ("The {p} release ships on {date1}", "{p} goes live {date1}"),
     ("when does the launch happen", "ship date of the release")),
    ("code.freeze", ("Code freeze for {p} starts {date2}", "No merges to {p} main after {date2}"),
     ("when do we stop merging changes", "cut-off for commits before launch")),
    ("repo", ("Source lives in git.example.com/{p}/core", "Clone {p} from the core monorepo"),
     ("where is the code hosted", "repository location")),
    ("oncall", ("{person} is on call for {p} this sprint", "Pager for {p} goes to {person}"),
     ("who gets paged when production breaks", "current incident responder")),
    ("vendor", ("Cloud costs for {p} are billed through {chain} Travel's account",
                "{p} hosting is paid by the {city} office"),
     ("who pays for the infrastructure", "billing arrangement for hosting")),
)
PROJECTS = ("falcon", "orion", "kestrel", "lynx", "nimbus", "quartz", "tundra", "vega",
            "zephyr", "atlas", "borealis", "cobalt", "delta", "ember", "fjord", "gale")


def fill(template: str, rng: random.Random, fixed: dict[str, str] | None = None) -> str:
    """The template with each slot from ``fixed`` or drawn from its list."""
    chosen = dict(fixed or {})

    def slot(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in chosen:
            chosen[name] = rng.choice(SLOTS[name])
        return chosen[name]

    return SLOT.sub(slot, template)
