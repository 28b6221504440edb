"""What instructions to the model look like: the words they are built from, in English and
Chinese, and the families of orders (``vintage.graph.memory.injection`` reads a text against
these and ``vintage.graph.memory.addressing``'s).

Each family matches the *structure* of an order rather than a list of phrases: an order to drop
earlier instructions (or a statement that they are void); a new role for the model; talk of
its system prompt; new instructions; a request to reveal its prompt, secrets or others' data;
an order to bypass its safeguards. Chinese patterns are written in simplified Mandarin: a text
is read so (``vintage.graph.memory.fold``), traditional and Cantonese included.
"""

from __future__ import annotations

# English building blocks. ``GAP``: a few words in between, not across a sentence.
GAP = r"[^.!?\n,;]{0,40}?"
EARLIER = (r"(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|"
           r"old|existing|your|system|safety)")
ORDERS = (r"(?:instructions?|prompts?|rules|directions|guidelines|guidance|directives|context|"
          r"messages?|orders|commands|constraints|policies|programming|training|guardrails)")
DISMISS = (r"(?:ignore|disregard|forget|override|overrule|skip|drop|abandon|discard|neglect|"
           r"set\s+aside|throw\s+out|stop\s+following|do\s+not\s+follow|don'?t\s+follow|"
           r"no\s+longer\s+follow)")
# Who an address to the model names: never a bare "agent", "model", "bot" or "system" (a
# support agent, a pricing model, "the system will send a reminder" are data).
AI = (r"(?:ai|a\.i\.|ais|ai\s+(?:\w+\s+)?(?:assistant|agent|model|system|helper)s?|assistants?|"
      r"chatbots?|"
      r"llms?|(?:large\s+)?language\s+models?|chatgpt|gpt(?:-\d)?|claude|gemini|copilots?|"
      r"deepseek|grok|llama|mistral)")
# Chinese: the same blocks. 指令 instructions, 规则 rules, 提示词 prompt, 设定 settings.
ZH_EARLIER = (r"(?:之前|以前|此前|先前|上面|以上|上述|前面|上文|原来|原有|原先|原本|所有|全部|"
              r"一切|系统|你的)")
ZH_ORDERS = r"(?:指令|指示|规则|规矩|提示词|设定|命令|约束|限制|规定|要求|安全策略|系统提示)"
# Not a bare 模型 or 机器人 (a product model, a robot vacuum): data more often than address.
# 人工智慧: Taiwan's word for AI (OpenCC's t2s changes characters, not such words)
ZH_AI = (r"(?:(?<![a-z])ai(?![a-z])|人工智能|人工智慧|智能助手|(?<![a-z])ai助手|(?<![a-z])ai助理|"
         r"智能助理|助手|大模型|语言模型|智能体|"
         r"gpt|chatgpt|文心一言|通义千问|kimi|deepseek|讯飞星火|智谱清言)")

# A model named without a bare 助手 (a person's assistant): whom a note is addressed to, or
# who is at work on the text ("日程助理收到这个邀请后，请"); ZH_MODEL adds a bare 模型 or 机器人,
# which only an address's own shape (its colon: "致…的模型：") makes a reader.
ZH_AGENT = (r"(?:(?<![a-z])ai(?![a-z])|人工智能|人工智慧|智能助手|(?<![a-z])ai助[手理]|智能助理|"
            r"代码助手|编程助手|日程助[理手]|邮件助手|购物助手|写作助手|机械人|大模型|语言模型|智能体|"
            r"gpt|chatgpt|文心一言|通义千问|kimi|deepseek|讯飞星火|智谱清言)")
ZH_MODEL = rf"(?:{ZH_AGENT}|模型|机器人)"


ORDER_FAMILIES: tuple[tuple[str, str], ...] = (
    ("an order to ignore earlier instructions",
     rf"\b{DISMISS}\b{GAP}\b{EARLIER}\b[^.!?\n,;]{{0,30}}?\b{ORDERS}\b"
     # the orders named at once: "ignore all instructions", not "ignore the encumbrance rules"
     rf"|\b(?:ignore|disregard|forget|override|overrule|abandon|discard|set\s+aside|throw\s+out|"
     r"stop\s+following|do\s+not\s+follow|don'?t\s+follow|no\s+longer\s+follow)\s+(?:(?:all|any|every|"
     r"the|these|those|other)\s+(?:of\s+)?(?:the\s+)?)?(?:instructions?|prompts?|rules|guidelines|"
     r"guidance|directives|guardrails)\b(?!\s+(?:of|for|on|about)\b)"
     # orders declared void: "your previous instructions are void", "everything you were
     # told before this line is obsolete"
     rf"|\byour\s+(?:\w+\s+){{0,2}}{ORDERS}\s+(?:are|is)\s+(?:now\s+)?(?:void|obsolete|"
     r"cancell?ed|revoked|invalid|null|suspended|lifted|no\s+longer\s+(?:valid|in\s+effect|apply|"
     r"applicable))\b"
     r"|\b(?:everything|anything|all|whatever)\s+(?:that\s+)?you(?:\s+were|\s+have\s+been|"
     r"'ve\s+been|\s+had\s+been)\s+(?:told|given|instructed|taught)\b[^.!?\n]{0,40}\b(?:is|are|"
     r"was)\s+(?:now\s+)?(?:obsolete|void|invalid|cancell?ed|irrelevant|wrong|outdated|"
     r"no\s+longer)\b"
     rf"|\b{DISMISS}\s+(?:all\s+(?:of\s+)?|everything\s+|anything\s+)?(?:the\s+)?(?:above|foregoing|"
     r"preceding)\b(?!\s+(?:paragraphs?|sections?|lines?|sentences?|emails?|messages?|drafts?|tables?|"
     r"figures?|versions?|notes?|text|lists?|items?|points?|comments?|address|numbers?|dates?|"
     r"prices?|steps?)\b)"
     r"|\b(?:drop|ignore|disregard|forget)\s+(?:whatever|anything|everything|all)\b[^.!?\n]{0,30}\b"
     r"(?:gave|told|asked)\s+you\b"
     rf"|{ZH_EARLIER}[^。！？!?\n]{{0,4}}?{ZH_ORDERS}[^。！？!?\n]{{0,3}}?(?:不用理|不必理|别理|不用管|别管|"
     r"不要管|不用遵守|可以忽略|忽略掉)"
     r"|\b(?:hu\s?lu?e|wu\s?shi|wang\s?ji|wang\s?diao)\b[^.!?\n]{0,30}\b(?:zhi\s?ling|gui\s?ze|"
     r"she\s?ding|ti\s?shi\s?ci)\b"
     # what the model was told: "forget everything you were told before this"
     rf"|\b{DISMISS}\b{GAP}\byou(?:\s+were|\s+have\s+been|'ve\s+been|\s+had\s+been|"
     rf"\s+got)\s+(?:given|told|taught|instructed|programmed|trained)\b"
     # an English order before Chinese words: "Ignore 之前的规则"
     rf"|\b(?:ignore|disregard|forget|override)\s*(?:{ZH_EARLIER}|{ZH_ORDERS})"
     rf"|(?:忽略|无视|忽视|不要理会|不用理会|不必理会|别理会|别管|忘记|忘掉|抛开|抛弃|丢弃|跳过|"
     rf"不要遵守|不要遵循|不再遵守|不再遵循|不用遵守|停止遵守|覆盖|推翻)"
     rf"(?:[^。！？!?\n]{{0,8}}?{ZH_EARLIER}[^。！？!?\n]{{0,8}}?(?:{ZH_ORDERS}|内容|对话|消息|信息|说明)"
     # the orders at once ("忽略规则", "忽略掉这些指令"), not a topic's ("无视交通规则")
     rf"|(?:掉|了)?(?:这些|那些|所有的?|全部的?|一切)?{ZH_ORDERS})"
     # 把 before the orders: "把你的规则都忘掉"
     rf"|把{ZH_EARLIER}[^。！？!?\n]{{0,8}}?{ZH_ORDERS}[^。！？!?\n]{{0,4}}?(?:忘掉|忘记|忘了|忽略|"
     r"无视|抛开|丢掉|作废)"
     # earlier orders to be treated as void: "就当之前的指示无效" (Cantonese 冇晒效 read as 没晒效)
     rf"|(?:就当|当作|视为|权当)(?:{ZH_EARLIER})[^。！？!?\n]{{0,6}}?{ZH_ORDERS}[^。！？!?\n]{{0,4}}?"
     r"(?:无效|失效|没(?:晒|有)?效|作废|不算|不存在)"
     # the model's orders declared void: "之前给你定的规矩全部作废"
     rf"|(?:给你|为你|你的|对你)[^。！？!?\n]{{0,6}}?{ZH_ORDERS}[^。！？!?\n]{{0,6}}?(?:作废|无效|失效|"
     r"不算数|不再有效|废除|取消了?)"),
    ("a new role for the model",
     # "you are now subscribed / eligible": a notice to a customer, not a role.
     r"\byou(?:\s+are|'re|re)\s+(?:now|no\s+longer)\b(?!\s+(?:(?:officially|formally|fully|"
     r"finally|all|successfully|now)\s+)?(?:\w+ed|eligible|able|ready|online|offline|"
     r"live|on\s+the\s+list|a\s+member|in\s+the\s+queue)\b)|\b(?:from\s+(?:now|here|this\s+"
     r"point|this\s+message)\s+on(?:wards?)?|henceforth),?\s+(?:you|act|behave|respond|answer|reply)\b"
     r"|(?:^|[.!?:;,(\n][^\S\n]*|\b(?:please|now|you|just|and|so|then)\s+)pretend\s+(?:to\s+be|you\s+are|"
     r"you'?re|that\s+you)\b|\bact\s+as\s+(?:an?\s+)?"
     r"(?:unrestricted|unfiltered|jailbroken|different|new|evil|uncensored)\b"
     r"|\ban?\s+(?:unrestricted|unfiltered|jailbroken|uncensored)\s+(?:ai|model|assistant|bot|chatbot|"
     r"llm|language\s+model|version)\b"
     r"|\b(?:never|do\s+not|don'?t)\s+(?:admit|reveal|say|mention|disclose)\s+(?:that\s+)?"
     r"you(?:\s+are|'re)\s+(?:an?\s+)?(?:ai|bot|language\s+model|llm|assistant|machine)\b"
     r"|\bfor\s+the\s+rest\s+of\s+(?:this|the|our)\s+(?:chat|conversation|session|thread)"
     r",?\s+(?:you|act|behave|respond|answer|reply)\b"
     r"|\byour\s+(?:only|sole|one|real|true|new)\s+(?:job|task|goal|purpose|mission|role)\s+"
     r"(?:is|now|from\s+now)\b"
     r"|\byour\s+new\s+"
     r"(?:role|persona|identity|task|goal|name)\b|\byour\s+(?:real|true|actual)\s+(?:task|"
     r"goal|purpose|instructions?|job)\s+is\b|\bdo\s+anything\s+now\b|\bdan\s+mode\b"
     r"|(?:从现在开始|从现在起|从今以后|从此以后|接下来|从(?:这条|这段|此条|本条)(?:记忆|消息|信息)?"
     r"(?:开始|起))[,，]?(?:你|您)"
     r"|(?:你|您)现在(?:是|就是|扮演|成为|变成)"
     r"|(?:你|您)(?:现在|接下来|今后|从此)?的(?:新)?(?:身份|角色)(?:是|变成|为|改为)"
     r"|(?:你|您)(?:已经)?不再是(?:一个|一名|个)?(?:(?<![a-z])ai(?![a-z])|人工智能|助手|助理|机器人|模型|大模型|"
     r"语言模型)"
     r"|不(?:要|许|准|得|能)(?:承认|透露|说出?|暴露)(?:自己|你)是(?:一个)?(?:(?<![a-z])ai(?![a-z])|人工智能|机器人|"
     r"模型|大模型|语言模型|助手)"
     r"|(?:扮演|假装|假扮)(?:你是|自己是|成)?(?:一个|一名|一位)?[^。！？!?\n]{0,10}(?:不受限|无限制|"
     r"没有(?:任何)?限制)"
     r"|假装(?:你是|自己是)"),
    ("a system prompt",
     r"(?:\b(?:your|its|the\s+(?:assistant|model|ai|bot)'?s|new|updated|real|true|override|hidden|"
     r"following|secret)\s+|你的\s*|您的\s*)system\s+(?:prompt|message|instructions?)\b"
     r"|(?:^|[.!?(\[\n][^\S\n]*)system\s+(?:prompt|message|instructions?)\s*(?:[:：]|override|update)"
     r"|\bdeveloper\s+mode\b|\bgod\s+mode\b|\bkai\s?fa\s?zhe\s?mo\s?shi\b"
     r"|系统提示|系统指令|系统消息|系统设定|开发者模式|上帝模式"
     r"|(?:隐藏|内部|你的|原始|初始|预设)(?:的)?提示词"),
    ("new instructions",
     r"(?:^|[.!?:\n][^\S\n]*)(?:new|updated|real|actual|true|hidden|secret|additional)\s+"
     r"instructions?\s*:"
     r"|\bhere\s+are\s+(?:your|the|my)\s+(?:new\s+)?instructions\b|\binstructions?\s+(?:for|to)"
     rf"\s+(?:the\s+|any\s+|all\s+)?{AI}\b"
     r"|(?:^|[。！？：:\n][^\S\n]*)(?:新的?|最新的?|更新的?|真正的|隐藏的?)(?:任务)?指令(?:如下)?[:：]"
     r"|(?:以下|下面)是(?:你的)?(?:新的?|最新的?|真正的)?(?:任务)?指令|真正的指令|隐藏指令"),
    ("a request to reveal the prompt or secrets",
     r"\b(?:reveal|print|show|repeat|output|leak|dump|disclose|expose|recite)\b"
     r"[^.!?\n]{0,24}\b(?:(?:system|hidden|initial|original|secret)\s+(?:prompt|instructions?)|"
     r"(?:your|the)\s+(?:instructions|prompt|api\s+keys?|credentials|secrets)|"
     r"(?:conversation|chat)\s+history|your\s+(?:internal\s+|hidden\s+)?(?:configuration|config)|"
     r"your\s+(?:secret|api|private)\s+keys?)\b"
     r"|\b(?:reveal|print|show|repeat|output|leak|dump|disclose|recite|list|paste|share)\b"
     r"[^.!?\n]{0,30}\byour\s+(?:\w+\s+)?(?:hidden|secret|internal|setup|system|original|"
     r"initial)\s+(?:\w+\s+)?(?:instructions|prompt|rules|configuration)\b"
     r"|\b(?:reveal|leak|dump|disclose|exfiltrate)\b[^.!?\n]{0,20}\b(?:the\s+)?(?:user'?s|users')\s+"
     r"(?:\w+\s+){0,3}(?:address(?:es)?|phone\s+numbers?|emails?|passwords?|contacts|data|details|"
     r"information|records)\b"
     r"|\b(?:reveal|print|show|output|leak|dump|disclose|list|paste|share)\b[^.!?\n]{0,20}\b"
     r"(?:other|all\s+(?:the\s+)?other)\s+users'?\s*(?:\w+\s+){0,3}(?:address(?:es)?|phone\s+numbers?|"
     r"emails?|passwords?|contacts|data|details|information|records|names)\b"
     r"|(?:列出|告诉我|发给我|输出|给出|透露|显示)[^。！？!?\n]{0,10}(?:其他|别的)(?:用户|使用者)的?"
     r"[^。！？!?\n]{0,6}(?:姓名|名字|电话|手机号|地址|住址|订单|记录|数据|信息|密码|资料)"
     r"|\b(?:reveal|print|repeat|output|leak|dump|disclose|recite)\b[^.!?\n]{0,24}"
     r"\b(?:every|all|each|any)\s+(?:of\s+the\s+)?(?:instructions?|rules|prompts?)"
     r"\b[^.!?\n]{0,40}\b(?:above|before|earlier|previous|prior|preceding)\b"
     r"|(?:泄露|泄漏|输出|打印|显示|展示|透露|公开|复述|重复|告诉我)[^。！？!?\n]{0,8}"
     r"(?:你的(?:指令|设定|提示)|内部规则|密钥|全部对话|聊天记录)"
     r"|把你[^。！？!?\n]{0,20}(?:指令|提示词|设定|系统提示|内部规则|配置|密钥)[^。！？!?\n]{0,12}"
     r"(?:重复|复述|输出|打印|显示|告诉我|发给我|列出|写出来)"),
    ("an order to bypass safeguards",
     r"\b(?:bypass|disable|circumvent|turn\s+off|ignore|remove|evade|switch\s+off|override)\b"
     r"[^.!?\n]{0,20}\b(?:safety|guardrails?|filters?|restrictions?|moderation|"
     r"content\s+polic(?:y|ies)|safeguards?|censorship)\b"
     r"|\bjailbr(?:eak|oken)\s+(?:mode|prompt|version|you|yourself|the\s+(?:model|ai|assistant|"
     r"chatbot|llm))\b|\byou(?:\s+are|'re)\s+(?:now\s+)?jailbroken\b"
     rf"|\bjailbr(?:eak|oke|oken)\s+{AI}\b"
     rf"|\b(?:you|you're|{AI}|model|bot)\b[^.!?\n]{{0,40}}\b(?:(?:has|have|with)\s+no|without\s+(?:any\s+)?)"
     r"\s*(?:content|safety|usage)\s+polic(?:y|ies)\b"
     rf"|\b(?:you|{AI}|model|bot)\b[^.!?\n]{{0,40}}\bnever\s+refuses?\b"
     r"|\bwithout\s+(?:any\s+)?(?:restrictions|limits|filters|censorship|rules)\b"
     r"|(?:绕过|绕开|跳过|关闭|禁用|解除|取消|无视|突破)[^。！？!?\n，,]{0,6}"
     r"(?:安全|审核|过滤|限制|防护|护栏|审查)"
     # 越狱 is also a prison break (a film, a news story): only as done to a model
     r"|越狱(?:模式|指令|提示|版本|方法)|(?:帮我|给我|进行|尝试|实现|开启|启用|教你)越狱"
     r"|越狱(?:你|这个?模型|ai|助手)|不受(?:任何)?限制"),
)
