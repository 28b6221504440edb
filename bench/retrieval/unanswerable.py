"""Questions the retrieval benchmark's corpus never answers, in English and Chinese: what the
relevance floors are chosen and checked on (``bench.retrieval.floors``, docs/retrieval.md,
"Calibrated scores and abstention").

    python -m bench.retrieval.unanswerable            # rewrite unanswerable.jsonl
    python -m bench.retrieval.unanswerable --check    # exit 1 if the file differs

Each question is about something no memory or filing of the corpus mentions: for a user, what
no topic of ``bench.retrieval.topics`` holds (a shoe size, a blood type); **near-topic** ones
sit beside a topic the user does hold (the tea they drink beside their coffee order, the hotel
room floor beside the hotel chain, a frequent flyer number beside the airline), so that a word
or a meaning is shared and only the answer is missing. A project is asked what none of its
five topics says; the filings' tenant what companyfacts never reports (a chief executive, a
headquarters) or a company it does not hold. Each question is asked in two scopes of the query
set (``queries.jsonl``: its users and projects, in order), and has no expected answer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.retrieval.queries import Query, load, render

FILE = Path(__file__).resolve().with_name("unanswerable.jsonl")

# (near-topic?, English, Chinese or None)
USER: tuple[tuple[bool, str, str | None], ...] = (
    (False, "what shoe size do they wear", "他们穿多大码的鞋"),
    (False, "what is their blood type", "他们的血型是什么"),
    (False, "how many children do they have", "他们有几个孩子"),
    (False, "what is their favourite colour", "他们最喜欢什么颜色"),
    (False, "what is the wifi password at their home", "他们家的无线网络密码是什么"),
    (False, "which dentist do they go to", "他们看哪位牙医"),
    (False, "what is their t-shirt size", "他们穿什么尺码的T恤"),
    (False, "what is their favourite film", "他们最喜欢哪部电影"),
    (False, "when is their wedding anniversary", "他们的结婚纪念日是哪天"),
    (False, "which board games do they enjoy", "他们喜欢玩什么桌游"),
    (False, "what is their passport number", None),
    (False, "which political party do they vote for", None),
    (True, "which tea do they drink in the afternoon", "他们下午喝什么茶"),
    (True, "which wine do they order with dinner", "他们晚餐点什么葡萄酒"),
    (True, "which floor do they want their hotel room on", "他们的酒店房间想要在几楼"),
    (True, "what is their frequent flyer number", "他们的常旅客号码是多少"),
    (True, "what is the name of their cat's vet", "他们的猫看哪个兽医"),
    (True, "what time do they go to bed", "他们晚上几点睡觉"),
    (True, "which podcast do they listen to on the way to work", "他们上班路上听什么播客"),
    (True, "what is the licence plate of their car", "他们车的车牌号是多少"),
    (True, "which pizza topping do they like best", None),
    (True, "what is their monthly salary", None),
    (True, "which gym are they a member of", None),
    (True, "what is their home phone number", None),
)
PROJECT: tuple[tuple[bool, str, str | None], ...] = (
    (False, "which cloud region does the service run in", "服务部署在哪个云区域"),
    (False, "what test coverage does the project require", "项目要求多少测试覆盖率"),
    (True, "which Redis version does the cache run", "缓存用的是哪个Redis版本"),
    (True, "how many story points fit in a sprint", "一个迭代能完成多少故事点"),
    (True, "who reviews the security audit", None),
    (True, "which CI system builds the pull requests", None),
)
FILINGS: tuple[tuple[bool, str, str | None], ...] = (
    (False, "who is the chief executive of Tesla", "特斯拉的首席执行官是谁"),
    (False, "where is NVIDIA headquartered", "英伟达的总部在哪里"),
    (False, "how many cars did Tesla deliver to customers", "特斯拉交付了多少辆车"),
    (True, "Apple iPhone unit sales", "苹果公司的手机销量"),
    (True, "Microsoft cloud revenue", "微软的云业务收入"),
    (True, "Amazon operating income", None),
    (True, "Alphabet carbon emissions", None),
    (True, "Snowflake customer count", None),
)


def _scopes(queries: list[Query]) -> tuple[list[tuple[str, dict[str, str]]], list[
        tuple[str, dict[str, str]]]]:
    """The users and the projects the query set asks in, in order of first use."""
    users: dict[tuple[str, str], None] = {}
    projects: dict[tuple[str, str], None] = {}
    for q in queries:
        if q.tenant == "sec":
            continue
        if "user" in q.scope:
            users[(q.tenant, q.scope["user"])] = None
        elif "project" in q.scope:
            projects[(q.tenant, q.scope["project"])] = None
    return ([(t, {"user": u}) for t, u in users], [(t, {"project": p}) for t, p in projects])


def build(queries: list[Query] | None = None) -> list[Query]:
    users, projects = _scopes(queries if queries is not None else load())
    out: list[Query] = []

    def add(near: bool, text: str, lang: str, tenant: str, scope: dict[str, str],
            all_scopes: bool = False) -> None:
        category = f"unanswerable {'near-topic ' if near else ''}({lang})"
        out.append(Query(f"u{len(out) + 1:03d}", category, text, tenant, dict(scope),
                         all_scopes=all_scopes, note="never mentioned by the corpus"))

    for rows, scopes in ((USER, users), (PROJECT, projects)):
        n = 0
        for near, en, zh in rows:
            for text, lang in ((en, "en"), (zh, "zh")):
                if text is None:
                    continue
                for k in range(2):  # two scopes, drawn in turn through the set's scopes
                    tenant, scope = scopes[(2 * n + k * 7) % len(scopes)]
                    add(near, text, lang, tenant, scope)
                n += 1
    for near, en, zh in FILINGS:
        for text, lang in ((en, "en"), (zh, "zh")):
            if text is not None:
                add(near, text, lang, "sec", {}, all_scopes=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval.unanswerable")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        same = FILE.exists() and FILE.read_text(encoding="utf-8") == text
        print(f"{FILE.name}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    FILE.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} questions to {FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
