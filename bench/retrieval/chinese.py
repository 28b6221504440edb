"""A parallel English and Chinese memory set for the languages bench (issue 40).

Each of the bench's 30 personal topics (``bench.retrieval.topics.TOPICS``, same keys, same
order) is one memory a user holds, written in English (the topic's first template, filled) and
in Chinese (a translation of that English, names and codes kept as written), and asked for
in each language by the topic's two paraphrases and their translations. As in the bench, a
question shares as few words with the memory as a person would: a paraphrase, not a copy. The
Chinese questions were written for this set, not machine-translated, so that they share few
characters with the stored text (水壶 is not asked as 水壶).
"""

from __future__ import annotations

# key: (stored in English, stored in Chinese, the two questions in Chinese); the English
# questions are the topic's own (``Topic.asked``).
PARALLEL: dict[str, tuple[str, str, tuple[str, str]]] = {
    "travel.seat": ("Prefers an aisle seat on flights longer than four hours",
                    "超过四小时的航班喜欢坐靠过道的座位",
                    ("他们坐飞机时喜欢坐在哪里", "乘机选位偏好")),
    "diet.restriction": ("Vegetarian, and allergic to peanuts", "吃素，并且对花生过敏",
                         ("给他们订午餐时要避开什么食物", "团餐的饮食要求")),
    "shipping.address": ("Ship orders to 45 Elm Street, Lisbon", "订单寄到里斯本 Elm Street 45 号",
                         ("包裹应该送到哪里", "快递发往哪个地点")),
    "meeting.hours": ("Only books meetings between 9:00 and 17:00 CET",
                      "只在欧洲中部时间 9:00 到 17:00 之间安排会议",
                      ("什么时候方便和他们约电话", "可以开会的时间段")),
    "editor.theme": ("Uses the Gruvbox colour scheme in Neovim", "在 Neovim 里用 Gruvbox 配色方案",
                     ("他们的代码编辑器是什么外观", "开发工具设成了什么色调")),
    "reply.language": ("Wants answers written in German", "希望回答用德语写",
                       ("回复应该用哪种语言", "他们想让我们用什么话跟他们交流")),
    "contact.channel": ("Reach them on Slack rather than by phone",
                        "通过 Slack 联系他们，不要打电话",
                        ("怎样最容易找到他们", "我们该如何与他们沟通")),
    "payment.card": ("Pays with the corporate Visa ending in 1480",
                     "用尾号 1480 的公司 Visa 卡付款",
                     ("买东西用哪张卡结账", "他们的开销记在什么上")),
    "hotel.chain": ("Books Hilton hotels close to the venue", "预订会场附近的希尔顿酒店",
                    ("他们选择哪个住宿品牌", "出差时他们在哪里过夜")),
    "coffee.order": ("Drinks a flat white every morning", "每天早上喝一杯澳白咖啡",
                     ("应该给他们买什么热饮", "他们平时提神喝的东西")),
    "pet": ("Has a beagle named Biscuit", "养了一只叫 Biscuit 的比格犬",
            ("他们家里住着什么动物", "他们有没有养宠物")),
    "birthday": ("Birthday is on March 14", "生日是三月十四日",
                 ("他们哪天长一岁", "出生日期")),
    "laptop.os": ("Develops on Arch Linux", "在 Arch Linux 上做开发",
                  ("他们电脑上装的是什么系统", "他们的机器用什么平台")),
    "exercise": ("Goes running at 6:30 before work", "上班前六点半去跑步",
                 ("他们的锻炼习惯是什么", "早上的健身安排")),
    "car": ("Drives a blue Tesla Model 3", "开一辆蓝色的特斯拉 Model 3",
            ("他们有什么交通工具", "哪辆汽车是他们的")),
    "medication.allergy": ("Cannot take penicillin: it gives a rash", "不能用青霉素：会起皮疹",
                           ("哪些药会引起不良反应", "药物不耐受")),
    "focus.music": ("Listens to jazz while coding", "写代码时听爵士乐",
                    ("他们专心工作时背景放什么", "深度工作的配乐")),
    "emergency.contact": ("Emergency contact is Maria Costa, their sister",
                          "紧急联系人是他们的姐姐 Maria Costa",
                          ("如果他们出事应该打给谁", "需要通知的亲属")),
    "purchase.limit": ("Needs approval for purchases above 1,000 euros",
                       "超过一千欧元的采购需要审批",
                       ("花费的上限是多少", "不经签字他们能买多贵的东西")),
    "vacation": ("On leave from 3 August to 17 August", "八月三日到八月十七日休假",
                 ("他们什么时候不在、去度假", "请假的日期")),
    "keyboard": ("Types on a split ergonomic keyboard with the Dvorak layout",
                 "用分体式人体工学键盘，Dvorak 布局",
                 ("他们打字用什么设备", "他们用哪种按键排列")),
    "reading": ("Reads mostly science fiction", "主要读科幻小说",
                ("他们喜欢哪类书", "最爱的文学作品")),
    "commute": ("Commutes by bike", "骑自行车通勤",
                ("他们怎么去上班", "他们进办公室的方式")),
    "team": ("Leads the payments team of six engineers", "带领六名工程师的支付团队",
             ("他们管理哪个小组", "谁向他们汇报")),
    "education": ("Studied physics at TU Munich", "在慕尼黑工业大学学物理",
                  ("他们的学术背景是什么", "他们上的是哪所大学")),
    "football": ("Supports FC Porto", "支持波尔图足球俱乐部",
                 ("他们为哪支球队加油", "最喜欢的球会")),
    "report.day": ("Send the weekly status report every Friday", "每周五发送周报",
                   ("进展汇报什么时候发出", "他们希望哪天收到总结")),
    "garden": ("Grows tomatoes on the balcony", "在阳台上种西红柿",
               ("他们在家种些什么", "园艺爱好")),
    "instrument": ("Plays the cello in an amateur orchestra", "在业余管弦乐团拉大提琴",
                   ("他们演奏哪种乐器", "他们自己玩的音乐")),
    "airline": ("Flies Lufthansa whenever possible, has status there",
                "尽量坐汉莎航空，有会员等级",
                ("订机票应该选哪家航司", "偏好的航空公司")),
    "font.size": ("Needs documents in 18-point type", "文档需要用十八号字",
                  ("发给他们的材料字要多大", "文档的无障碍需求")),
    "sport": ("Does climbing twice a week", "每周攀岩两次",
              ("他们练什么体育项目", "他们的竞技爱好")),
}
