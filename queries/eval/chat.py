"""The answer hook: an OpenAI-compatible ``/chat/completions`` endpoint in place of the rule.

Opt-in only (``vintage eval --answerer openai:<base_url>#<model>``, the key in
``VINTAGE_EVAL_ANSWERER_KEY``); never a default and never run in CI, where the deterministic
rule (``vintage.queries.eval.answer``) answers. The model is handed exactly the context the rung
handed over and the question, and told to answer with the value alone or ``UNKNOWN``; its reply
is read back into the same :class:`Answer` the rule gives, so the same checks score it.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass

from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.answer import Answer
from vintage.queries.eval.rungs import Handed

KEY_ENV = "VINTAGE_EVAL_ANSWERER_KEY"
UNKNOWN = ("unknown", "不知道", "未知")
SYSTEM = ("Answer the question from the context only. Reply with the value alone, no sentence. "
          "If the context does not contain the answer, reply UNKNOWN.")


class AnswererError(UserError):
    """The endpoint could not be reached or did not answer in the expected shape."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``openai:<base_url>#<model>`` as (base URL, model)."""
    if not spec.startswith("openai:") or "#" not in spec:
        raise InvalidArgument("--answerer is openai:<base_url>#<model>")
    base, _, model = spec.removeprefix("openai:").partition("#")
    if not base.startswith(("http://", "https://")) or not model.strip():
        raise InvalidArgument("--answerer is openai:<base_url>#<model>, the URL http(s)://")
    return base.rstrip("/"), model.strip()


def read_reply(reply: str) -> Answer:
    """A model's reply as an answer: a refusal when it says it does not know."""
    text = reply.strip().strip("\"'。.").strip()
    if not text or text.casefold() in UNKNOWN:
        return Answer("refused")
    return Answer("value", (text,))


@dataclass
class ChatAnswerer:
    base_url: str
    model: str
    timeout: float = 60.0

    @classmethod
    def of(cls, spec: str) -> ChatAnswerer:
        base, model = parse_spec(spec)
        return cls(base, model)

    def __call__(self, handed: Handed, a: sc.Ask) -> Answer:
        if handed.nothing_relevant:
            return Answer("refused")
        body = {"model": self.model, "temperature": 0, "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Context:\n{handed.text}\n\nQuestion: {a.query}"}]}
        return read_reply(self._post(body))

    def _post(self, body: dict[str, object]) -> str:
        url = f"{self.base_url}/chat/completions"
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(KEY_ENV)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
            return str(answer["choices"][0]["message"]["content"])
        except urllib.error.HTTPError as e:
            raise AnswererError(f"the answerer at {url} answered HTTP {e.code}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            raise AnswererError(f"cannot reach the answerer at {url}: "
                                f"{getattr(e, 'reason', e)}") from None
        except (ValueError, KeyError, IndexError, TypeError):
            raise AnswererError(f"the answerer at {url} did not answer "
                                "choices[0].message.content") from None
