"""Personal data no maintained detector covers, in English and Chinese: precise locations
(street addresses, coordinates), health data, financial account data (balances, account and
routing numbers), identifiers named in so many words (passports, licences) and passwords said
in prose. ``vintage.graph.memory.sensitive`` runs these beside detect-secrets and
python-stdnum's validators.

Each pattern needs the *shape* that makes the data personal, not a topic word: a house number
on a named street (``221B Baker Street``, ``建国路88号``), not "Main Street"; a balance with an
amount, not a price; a condition someone has (``diagnosed with``, ``我有糖尿病``), not a
pharmacy downstairs. Measured on a labelled set with harmless look-alikes (``bench.gates``).
"""

from __future__ import annotations

import re

_ZH_NUM = r"[0-9０-９一二三四五六七八九十百零〇]+"

_STREET = (r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|"
           r"Place|Pl|Terrace|Close|Crescent|Square|Sq|Parkway|Pkwy|Highway|Hwy|Row|Alley|"
           r"Strasse|Straße|Rue|Via|Calle|Parade|Esplanade|Promenade|Grove|Mews|Quay|"
           r"Wharf)")
LOCATION = re.compile(
    r"-?\d{1,2}\.\d{4,}\s*,\s*-?\d{1,3}\.\d{4,}"  # latitude, longitude to ~10 m
    # a house number (``221B``) on a named street; the name capitalised, so "5 more road trips"
    # is not an address
    rf"|\b(?!(?:19|20)\d\d\b)\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][a-z]*\.?\s+){{1,4}}{_STREET}\b\.?"
    r"|\b(?:Apt|Apartment|Suite|Unit|Flat)\.?\s*#?\s*\d+[A-Za-z]?\b[^.\n]{0,40}\b\d{1,5}\s+[A-Z]"
    r"|\bP\.?\s?O\.?\s+Box\s+\d+"
    r"|\b(?:Apt|Apartment|Suite|Unit|Flat)\.?\s*#?\s*\d+[A-Za-z]?\b[^.\n]{0,80}?"
    r"(?:\b[A-Z][a-z]+,?\s+(?:\d{6}|\d{5}(?:-\d{4})?)|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2})\b"
    r"|\b\d{1,2}-\d{1,3}(?:-\d{1,3})?,?\s+[A-Z][a-z]+(?:[- ][A-Z][a-z]+){0,2},\s+"
    r"[A-Z][a-z]+-(?:shi|ku|cho|machi|gun)\b"
    # French, Italian, Spanish, Portuguese order: the number, the street's kind, its name
    r"|\b\d{1,5}[A-Za-z]?(?:\s+(?:bis|ter))?,?\s+(?:Rue|rue|Avenue|Av\.|Boulevard|boulevard|Bd|"
    r"Chemin|chemin|Allée|allée|Place|Quai|quai|Impasse|impasse|Viale|Piazza|Corso|Calle|Avenida|"
    r"Paseo|Plaza|Rua|Travessa)\s+"
    r"(?:(?:de|des|du|de\s+la|la|le|les|del|della|delle|di|dos|das|do|da)\s+)?"
    r"[A-ZÀ-ÖØ-Þ']"
    # German and Dutch order: the name ending in its kind, then the number
    r"|(?<![A-Za-zÀ-ÿ])[A-ZÄÖÜ][a-zäöüß]{2,}(?:straße|strasse|str\.|weg|gasse|platz|allee|straat|"
    r"laan|gracht|plein)\s+\d{1,4}[a-z]?\b"
    r"|\b[A-Z][a-z]+,\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?\b"  # Washington, DC 20500
    # a Latin street name in Chinese word order, its number after it: "Elm Street 45 号"
    rf"|\b(?:[A-Z][a-z]+\.?\s+){{1,3}}{_STREET}\.?\s*\d{{1,5}}[A-Za-z]?\s*(?:号|號)"
    # 建国路88号, 漕溪北路88号, 高新南七道12号, 胡同, 弄, 巷
    rf"|[\u4e00-\u9fff]{{1,10}}(?:路|街|大街|大道|(?<!知)道|巷|胡同|弄)"
    rf"[东西南北中段一二三四五六七八九十]{{0,3}}{_ZH_NUM}(?:号|弄|號|巷)"
    # 3号楼1201室, 2栋502, 5单元301
    rf"|(?<![0-9０-９一二三四五六七八九十百零〇]){_ZH_NUM}(?:号楼|栋|幢|座|单元)[\s-]*(?:{_ZH_NUM}单元[\s-]*)?"
    rf"(?:{_ZH_NUM}(?:室|房|号)|\d{{3,4}}(?!\d))"
    rf"|[\u4e00-\u9fff]{{2,12}}(?:小区|花园|公寓|新村|家园|苑){_ZH_NUM}(?:号楼|栋|幢|座|期)",
    re.ASCII,
)

_CONDITIONS = (r"diabetes|diabetic|cancer|tumou?r|leukemia|hiv|aids|hepatitis|asthma|"
               r"epilepsy|bipolar|schizophrenia|depression|anxiety|ptsd|adhd|autism|dementia|"
               r"alzheimer'?s|parkinson'?s|multiple\s+sclerosis|high\s+blood\s+pressure|"
               r"hypertension|heart\s+(?:disease|condition)|eating\s+disorder|anorexia|"
               r"bulimia|ocd|panic\s+attacks|insomnia|arthritis|celiac|crohn'?s|migraines|"
               r"(?:chronic|mental|heart|kidney|liver)\s+(?:illness|condition|disease)|"
               r"spinal\s+cord\s+injury|cerebral\s+palsy|down\s+syndrome|paraplegia|melanoma|"
               r"carcinoma|lymphoma|sarcoma")
_ALLERGENS = (r"penicillin|peanuts?|(?:tree\s+)?nuts|shellfish|fish|gluten|wheat|latex|dairy|"
              r"lactose|milk|eggs?|soy|sesame|bee\s+stings?|pollen|aspirin|ibuprofen|sulfa")
_ZH_CONDITIONS = (r"糖尿病|高血压|心脏病|冠心病|[\u4e00-\u9fff]?癌症?|肿瘤|乙肝|丙肝|艾滋病?|"
                  r"抑郁症|焦虑症|躁郁症|精神分裂症?|哮喘|癫痫|失眠症|痛风|甲亢|不孕症?|结节|"
                  r"自闭症|孤独症|多动症|唐氏综合征|脑瘫|阿尔茨海默症?|帕金森病?|残疾|中风(?!险)|脑梗|偏瘫|"
                  r"双相情感障碍|双相障碍|情感障碍|焦虑障碍|抑郁障碍")
# A condition is health data when someone has it ("has asthma", "my depression", "diagnosed
# with"), not as a topic ("a cancer research charity", "the Great Depression chapter").
HEALTH = re.compile(
    r"\b(?:diagnos(?:is|ed|e)|prescri(?:bed|ption\s+for)|medication|chemotherapy|chemo|"
    r"radiotherapy|dialysis|pregnan(?:t|cy)|miscarriage|ivf|blood\s+pressure|therapy\s+for|"
    r"psychiatri(?:c|st)|therapist|antidepressants?|insulin|rehab|biopsy)\b"
    r"|\bstage\s+(?:[0-4]|iv|i{1,3})[abc]?\s+(?:\w+\s+)?(?:cancer|melanoma|carcinoma|lymphoma|sarcoma|"
    r"tumou?r)\b|\b\d{1,2}\s+weeks\s+(?:along|pregnant)\b"
    rf"|\ballerg(?:y|ic)\s+to\s+(?:{_ALLERGENS})\b"
    r"|\b(?:has|have|had|with|suffers?\s+from|suffering\s+from|living\s+with|treated\s+for|"
    r"(?:family|medical|personal)\s+history\s+of|battling|survived|my|his|her|their|is|since)\s+(?:an?\s+|type\s+\d\s+|severe\s+|"
    rf"chronic\s+|clinical\s+|stage\s+\w+\s+)*(?:{_CONDITIONS})\b"
    r"|\b(?:takes|taking|on|started|stopped)\s+(?:metformin|insulin|lithium|prozac|zoloft|"
    r"sertraline|fluoxetine|xanax|adderall|ritalin|statins?|methadone|antidepressants?|"
    r"chemo)\b"
    r"|\b(?:uses|use|using|needs?)\s+a\s+wheelchair\b|\b(?:i'?m|i\s+am|he'?s|she'?s|he\s+is|she\s+is|"
    r"they\s+are|(?:my|his|her|our|their)\s+\w+\s+(?:is|was)|(?:he|she|i)\s+went)\s+(?:legally\s+|"
    r"completely\s+|partially\s+)?(?:blind|deaf|paraly[sz]ed|paraplegic|quadriplegic|an\s+amputee)\b"
    r"(?!\s+(?:to|by|with)\b)"
    r"|\b(?:i'?m|i\s+am|he'?s|she'?s|they'?re|is|are|am|was|been|takes?|taking|took|"
    r"prescribed)\s+on\s+\d+(?:\.\d+)?\s?(?:mg|mcg|μg|ug)\b"
    r"|\b(?:on|takes?|taking|took|prescribed|started|dose\s+of)\s+\d+(?:\.\d+)?\s?(?:mg|mcg|μg|ug)\b"
    r"|\b\d+(?:\.\d+)?\s?(?:mg|mcg|μg|ug)\b(?!\s*(?:of\s+)?(?:caffeine|sodium|salt|sugar|protein|"
    r"fib(?:re|er)|calcium|iron|vitamin|magnesium|omega|zinc|potassium|cholesterol))[^.\n]{0,40}\b"
    r"(?:once|twice|three\s+times|daily|a\s+day|per\s+day|every\s+(?:morning|night|evening|day)|"
    r"at\s+bedtime|nightly)\b"
    # Chinese: the same shapes: a condition someone has (有, 患有, 得了, 确诊), not a book
    # about it; a drug someone takes; a check-up someone goes to
    rf"|(?:有|患有|患了|得了|得过|查出|确诊|诊断为|诊断出|犯了)[^，。,.]{{0,4}}?(?:{_ZH_CONDITIONS})"
    # someone who is the condition: "儿子是自闭症谱系", "我是糖尿病人"
    rf"|(?:我|他|她|儿子|女儿|孩子|老公|老婆|丈夫|妻子|爸爸|妈妈|父亲|母亲|爷爷|奶奶|外婆|外公)"
    rf"(?:是|属于)(?:{_ZH_CONDITIONS})(?!科|医|专|研|中心|病房|护)"
    r"|坐轮椅|听障|视障|截肢|残疾(?:人)?证"
    rf"|(?:{_ZH_CONDITIONS})(?:以后|之后|后遗症|后)|康复训练|复健"
    # a condition under treatment: "焦虑症至少要坚持吃半年", "医生说我的哮喘…"
    rf"|(?:{_ZH_CONDITIONS})[^，。,.的]{{0,10}}?(?:吃药|服药|坚持吃|要吃|在吃|复诊|复查|住院)"
    r"|(?:在吃|在服|正在吃|开始吃|每天吃|一直吃)[^，。,.]{0,6}?(?:药|胶囊|林|他汀|唑|地平|沙坦|洛尔|"
    r"西泮|胰岛素)"
    r"(?=[，。,.\s]|$)"
    r"|(?:吃|服用?|注射|打)[^，。,.]{0,8}?\d+\s?(?:mg|毫克|微克|mcg)"
    r"|确诊|诊断(?:为|出|是)|患有|病史|服用|吃[^，。,.]{0,4}药|用药|服药|处方|抗抑郁|怀孕|孕期"
    r"|产检|孕检|流产|化疗|放疗|透析|精神科|心理医生|心理治疗|住院|做了?[^，。,.]{0,6}手术|过敏"
    r"|胰岛素|试管婴儿",
    re.IGNORECASE | re.ASCII,
)

# An amount starts where a number starts (without the look-behind every digit of a long run
# was a start, each scanning the rest: quadratic in the run).
_MONEY = (r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?|(?<![\d,.])\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars|"
          r"euros))")
FINANCE = re.compile(
    rf"\b(?:account|checking|savings|bank|card|current|available)\s+balance\b[^.\n]{{0,30}}"
    rf"{_MONEY}|\bbalance\s+(?:is|of|was|stands\s+at|:)\s*{_MONEY}"
    rf"|{_MONEY}\s+(?:in|on)\s+(?:my|his|her|their|our|the)\s+(?:checking|savings|bank|"
    rf"brokerage|retirement|401k|isa)\s+account"
    rf"|\b(?:my|our|his|her|their)\s+(?:[A-Z]\w+\s+){{0,2}}(?:joint\s+)?(?:checking|savings|bank|current|brokerage|"
    rf"retirement)\s+account\b[^.\n]{{0,40}}?\b(?:is|was|has|holds|had|at|to|stands\s+at|sits\s+at|"
    rf"contains|with)\s+(?:only\s+|just\s+|about\s+|over\s+|under\s+)?{_MONEY}"
    rf"|\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:mortgage|loan)(?:\s+balance)?\s+(?:is|was|stands\s+at|"
    rf"of|at|:|has)\s+(?:still\s+|about\s+|only\s+)?{_MONEY}"
    rf"|\bremaining\s+on\s+(?:the|my|our|his|her|their)\s+(?:\w+\s+)?(?:mortgage|loan)\b[^.\n]{{0,10}}"
    rf"{_MONEY}"
    r"|(?:房贷|车贷|贷款|欠款|信用卡)(?:还)?(?:剩|余|欠)[^，。,.]{0,6}?\d[\d,.]*\s*(?:万|元|块)"
    r"|\b(?:(?:account|acct|routing)\s*(?:number|no\.?|num|#)?|(?:sort|loan|mortgage)\s*(?:number|"
    r"no\.?|num|#|code))\s*(?:is|:|#)?\s*(?!(?:19|20)\d\d\s*[-–]\s*(?:19|20)?\d\d\b)\d[\d -]{5,}\d"
    # Chinese: a balance with its amount; an account or card number
    r"|(?:余额|存款|结余|账上|卡里|账户里)[^，。,.]{0,8}?(?:\d[\d,]*(?:\.\d+)?\s*(?:元|块|万|美元)"
    r"|[一二三四五六七八九十百千两]+\s*(?:元|块|万|亿|美元))"
    r"|(?:余额|存款)(?:还有|是|为|有|:|：)\s*\d"
    r"|(?:银行卡号?|卡号|账号|帐号|账户号?|银行账户|收款账户|户口(?:号码?)?)(?:码)?(?:是|为|系|:|：)?"
    r"\s*(?!1[3-9]\d{9}(?!\d))\d[\d -]{9,}\d",
    re.IGNORECASE | re.ASCII,
)

# An identifier named in so many words, where no validator exists (passports, licences).
NAMED_ID = re.compile(
    r"(?:\b(?:ssn|social security(?: number)?|national insurance(?: number)?|nino|passport|"
    r"national id|tax id|taxpayer id|"
    r"resident id|identity card|id card|aadhaar|driver'?s?\s+licen[cs]e|dl|"
    r"licen[cs]e\s+(?:no|number|#))\b"
    r"|身份证|身分证|护照|社保卡?号?|驾驶证|驾照|港澳通行证|台胞证|军官证)"
    # a number of 5+ digits, or grouped (``D1234-56789-01234``), never a date after the name
    r"\D{0,30}?[A-Z]{0,2}(?:\d{3,}(?:[ -]\d{3,})+|\d{5,})",
    re.IGNORECASE | re.ASCII)

# "my password is hunter22" / "我的密码是hunter22": detect-secrets reads code and config
# (``password = ...``), not prose. The word after must look like a secret (a digit or symbol,
# or quoted), so "the password is on the fridge" passes.
SAID = re.compile(
    r"(?:\b(?:pass(?:word|wd|code|phrase)|pwd|pin(?: ?code)?|api[ _-]?key|secret(?: key)?|"
    r"access[ _-]?(?:key|token)|auth[ _-]?token|token|(?:recovery|backup|2fa|mfa|otp|one-time)"
    r"\s+codes?|door\s+code|alarm\s+code|gate\s+code|garage\s+code|keypad(?:\s+code)?|"
    r"disarm\s+code)\s*(?:(?:is|was|are|were)\b|:|=)"
    # whose it is, in between: "the PIN for my debit card is"
    r"|\b(?:pass(?:word|code)|pin(?: ?code)?|(?:door|alarm|gate|garage|keypad|disarm)\s+code)"
    r"\s+(?:for|of|to|on)\s+(?:my|the|his|her|our|their|your)\s+[\w' -]{1,30}?"
    r"\s*(?:(?:is|was|are|were)\b|:|=)"
    r"|(?:wi-?fi|wlan|wpa2?)\b[^.\n，。]{0,40}?\b(?:key|passcode|pw)\b\s*(?:(?:is|was)\b|:|=)?"
    # the name and the value with nothing between: "login ... with password Tr0mbone!River9"
    r"|\b(?:pass(?:word|wd|code|phrase)|pwd)\s+(?=\S*\d)"
    r"|\b(?:user(?:name)?|login)\s+\S+,?\s+pass\s+(?=\S*\d)(?=\S*[a-z])(?=\S{8,})"
    r"|(?:密码|口令|密钥|支付密码|登录密码|取款密码|pin码|备用码|恢复码|备份码|安全码|门禁码)"
    r"(?:是|为|系|:|：|=|\s)|门禁(?:密码|码)?(?:是|为|系|按|:|：))\s*"
    r"(?P<q>[\"'`“]?)(?P<v>[^\s\"'`“”，。]+)", re.IGNORECASE | re.ASCII)

# A wallet's recovery words (BIP-39: twelve to twenty-four lower-case words) after their name.
SEED = re.compile(r"(?:\b(?:seed|recovery|backup|mnemonic)\s+(?:phrase|words)|助记词|恢复短语)"
                  r"\s*(?:is|are|:|：|是|为)\s*(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8}\b",
                  re.IGNORECASE | re.ASCII)
