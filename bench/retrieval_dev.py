"""The development set: paraphrase questions used to *choose* the ranking of issue #15
(centring, the two-step floor, and the pooling variants that were dropped), so that the
benchmark's own paraphrase buckets (bench/retrieval_set.py) stay held out.

``bench/retrieval_bench.py --dev`` runs it (these memories among the same distractors).
"""

from __future__ import annotations

from bench.retrieval_set import Labelled

DEV_MEMORIES = (
    Labelled(
        "d_flags",
        "Feature toggles",
        "Unfinished features ship dark behind Unleash toggles until QA signs off.",
    ),
    Labelled("d_mono", "Monorepo", "All services live in one repository managed with Nx."),
    Labelled(
        "d_owners",
        "Code owners",
        "Changes to the payments folder need approval from the billing team.",
    ),
    Labelled(
        "d_http",
        "HTTP client",
        "Outgoing requests use httpx with a ten second timeout and three retries.",
    ),
    Labelled(
        "d_pwd",
        "Password hashing",
        "Passwords are hashed with Argon2id; bcrypt hashes are upgraded at login.",
    ),
    Labelled(
        "d_release",
        "Release notes",
        "The changelog is generated from conventional commit messages.",
    ),
    Labelled(
        "d_dark", "Dark theme", "The interface follows the operating system's dark mode setting."
    ),
    Labelled(
        "d_upload",
        "File uploads",
        "Uploads larger than 50 MB go directly to S3 with presigned URLs.",
    ),
    Labelled("d_lunch", "Lunch", "Food is delivered to the office every Thursday at noon."),
    Labelled(
        "d_parking",
        "Parking",
        "Visitors park in the underground garage; spaces are booked at the front desk.",
    ),
    Labelled(
        "d_python",
        "Python version",
        "The backend targets Python 3.12 and uses uv to pin dependencies.",
    ),
    Labelled(
        "d_queue",
        "Retries",
        "Failed webhook deliveries are retried with exponential backoff for a day.",
    ),
    Labelled(
        "d_pager",
        "Escalation",
        "If nobody acknowledges a page within fifteen minutes the manager is called.",
    ),
    Labelled(
        "d_photos", "Thumbnails", "Product photos are resized to three widths by a Lambda function."
    ),
    Labelled(
        "d_sql", "Raw SQL", "Avoid string formatting in queries; always pass bound parameters."
    ),
    Labelled(
        "d_docs", "API reference", "The OpenAPI spec is the source of truth; Redoc renders it."
    ),
    Labelled(
        "d_kids",
        "Parental leave",
        "Parents get sixteen weeks of paid leave after a birth or adoption.",
    ),
    Labelled(
        "d_bike",
        "Cycling",
        "Bicycles can be locked in the courtyard racks; showers are on the ground floor.",
    ),
    Labelled("d_vpn", "Remote access", "Employees connect to internal tools through Tailscale."),
    Labelled(
        "d_print", "Printer", "The colour printer near the kitchen jams when given thick card."
    ),
)

# Forty more, written when the shipped static model (scripts/train_static_model.py) was
# being trained: twenty questions could no longer tell its variants apart.
DEV_MEMORIES_2 = (
    Labelled(
        "e_tz",
        "Server clocks",
        "All servers run on UTC; convert to local time only in the interface.",
    ),
    Labelled(
        "e_i18n",
        "Translations",
        "Strings are translated in Crowdin and pulled into the repo before each release.",
    ),
    Labelled(
        "e_search",
        "Product search",
        "Catalogue search is powered by Elasticsearch with a synonym list per language.",
    ),
    Labelled(
        "e_pay",
        "Payments",
        "Card payments go through Stripe; refunds are issued from its dashboard.",
    ),
    Labelled(
        "e_mail", "Transactional email", "Receipts and password resets are sent with Postmark."
    ),
    Labelled("e_sms", "Text messages", "One-time codes are delivered by Twilio."),
    Labelled(
        "e_maps",
        "Store locator",
        "The shop finder shows branches on a Leaflet map with OpenStreetMap tiles.",
    ),
    Labelled(
        "e_video",
        "Video",
        "Tutorial recordings are hosted on Vimeo and embedded with the privacy-enhanced player.",
    ),
    Labelled(
        "e_fmt",
        "Formatting",
        "Prettier formats the TypeScript; the check fails the build on any diff.",
    ),
    Labelled("e_types", "Type checking", "mypy runs in strict mode on the core package."),
    Labelled(
        "e_bundle",
        "Bundler",
        "The front end is built with Vite and split into one chunk per route.",
    ),
    Labelled(
        "e_state",
        "Client state",
        "Server data is cached with TanStack Query; Redux is being phased out.",
    ),
    Labelled(
        "e_orm", "Data access", "Models are defined with SQLAlchemy 2 and its typed mappings."
    ),
    Labelled(
        "e_cache2",
        "HTTP caching",
        "Product pages send an ETag and are cached by Varnish for five minutes.",
    ),
    Labelled(
        "e_secrets2",
        "Rotating keys",
        "Signing keys are rotated every ninety days by a scheduled job.",
    ),
    Labelled(
        "e_audit",
        "Audit trail",
        "Every change to an order is appended to an immutable events table.",
    ),
    Labelled(
        "e_backup2",
        "Restore drill",
        "Once a quarter someone restores last night's dump into a scratch database.",
    ),
    Labelled(
        "e_cost",
        "Cloud bill",
        "The AWS invoice is reviewed on the first Tuesday; idle instances are stopped.",
    ),
    Labelled(
        "e_sec",
        "Vulnerability reports",
        "Researchers write to security@ and get an answer within two working days.",
    ),
    Labelled(
        "e_deps", "Dependency updates", "Renovate opens upgrade pull requests every Monday morning."
    ),
    Labelled(
        "e_onboard", "First week", "Newcomers pair with a buddy and ship a small fix before Friday."
    ),
    Labelled(
        "e_review", "Performance reviews", "Appraisals happen twice a year, in March and September."
    ),
    Labelled(
        "e_sick",
        "Sick days",
        "Call your manager before ten if you are unwell; no doctor's note for three days.",
    ),
    Labelled("e_remote", "Working from home", "Staff may work remotely up to three days a week."),
    Labelled("e_kitchen", "Kitchen", "Wash your own mug; the dishwasher runs at six."),
    Labelled(
        "e_heating",
        "Office temperature",
        "The thermostat is locked at 21 degrees; facilities can change it.",
    ),
    Labelled(
        "e_keys", "Building access", "Badges open the doors from seven until eight in the evening."
    ),
    Labelled(
        "e_post", "Mail room", "Parcels for staff are left at the front desk and logged in a book."
    ),
    Labelled(
        "e_expenses",
        "Expense claims",
        "Receipts are photographed in Pleo within a week of purchase.",
    ),
    Labelled(
        "e_pension",
        "Retirement plan",
        "The company matches contributions up to five percent of salary.",
    ),
    Labelled(
        "e_gym",
        "Fitness",
        "A discounted membership at the nearby sports centre is offered to everyone.",
    ),
    Labelled(
        "e_firstaid", "First aid", "The defibrillator hangs beside the lifts on the second floor."
    ),
    Labelled(
        "e_fire",
        "Evacuation",
        "When the alarm sounds, leave by the stairs and gather in the car park.",
    ),
    Labelled(
        "e_ml",
        "Recommendations",
        "Suggested products come from a nightly matrix factorisation job.",
    ),
    Labelled(
        "e_etl",
        "Reporting pipeline",
        "dbt models transform the raw tables into dashboards in Metabase.",
    ),
    Labelled(
        "e_flaky",
        "Unstable checks",
        "Tests that fail intermittently are quarantined with a pytest marker.",
    ),
    Labelled(
        "e_perf2", "Profiling", "Use py-spy on the live process to see where the CPU time goes."
    ),
    Labelled(
        "e_mem",
        "Memory leak",
        "The worker grew to 4 GB because a dict kept every request; it is now an LRU.",
    ),
    Labelled(
        "e_ws",
        "Live updates",
        "The dashboard receives changes over a WebSocket instead of polling.",
    ),
    Labelled("e_pdf2", "Contracts", "Customers sign agreements electronically through DocuSign."),
)

DEV_QUERIES_2 = [
    ("which reference zone do machines follow", "e_tz"),
    ("localising the interface into other languages", "e_i18n"),
    ("looking up goods by keyword", "e_search"),
    ("who charges customers online", "e_pay"),
    ("provider for automated account notifications", "e_mail"),
    ("which provider sends login pins to mobiles", "e_sms"),
    ("cartography library for our outlets", "e_maps"),
    ("where do instructional clips live", "e_video"),
    ("automatic code style tool for the web frontend", "e_fmt"),
    ("static verification of annotations", "e_types"),
    ("what compiles the browser assets", "e_bundle"),
    ("library for fetching remote information in the browser", "e_state"),
    ("object relational toolkit", "e_orm"),
    ("reverse proxy that keeps copies of documents", "e_cache2"),
    ("how often are cryptographic credentials replaced", "e_secrets2"),
    ("history of modifications to purchases", "e_audit"),
    ("practising recovery from snapshots", "e_backup2"),
    ("reducing the hosting spend", "e_cost"),
    ("how to disclose a software flaw", "e_sec"),
    ("bot that bumps library versions", "e_deps"),
    ("what new hires do at the start", "e_onboard"),
    ("annual evaluation of employees", "e_review"),
    ("what to do when ill", "e_sick"),
    ("telecommuting rules", "e_remote"),
    ("cleaning cups and plates", "e_kitchen"),
    ("it is too cold in here", "e_heating"),
    ("when can we enter the premises", "e_keys"),
    ("where do deliveries for employees arrive", "e_post"),
    ("getting reimbursed for costs", "e_expenses"),
    ("pension savings", "e_pension"),
    ("exercise perks", "e_gym"),
    ("heart emergency equipment", "e_firstaid"),
    ("fire drill meeting point", "e_fire"),
    ("how are personalised picks generated", "e_ml"),
    ("business intelligence charts", "e_etl"),
    ("handling nondeterministic suites that break randomly", "e_flaky"),
    ("finding which code is slow in production", "e_perf2"),
    ("why did the background process use so much RAM", "e_mem"),
    ("pushing real-time data to the browser", "e_ws"),
    ("approving legal paperwork online", "e_pdf2"),
]

DEV_QUERIES = [
    ("hiding incomplete functionality from customers", "d_flags"),
    ("single codebase for every microservice", "d_mono"),
    ("who must review edits to money handling", "d_owners"),
    ("calling external web APIs", "d_http"),
    ("storing user credentials securely", "d_pwd"),
    ("how is the version history document produced", "d_release"),
    ("night colour scheme", "d_dark"),
    ("sending big attachments", "d_upload"),
    ("free meals at work", "d_lunch"),
    ("where can guests leave their cars", "d_parking"),
    ("which interpreter release does the server run", "d_python"),
    ("redelivering callbacks that did not arrive", "d_queue"),
    ("what happens when an alert is ignored", "d_pager"),
    ("shrinking pictures of items", "d_photos"),
    ("preventing injection attacks in database code", "d_sql"),
    ("endpoint documentation", "d_docs"),
    ("time away after having a baby", "d_kids"),
    ("commuting by bike", "d_bike"),
    ("private network for working from home", "d_vpn"),
    ("paper getting stuck in the copier", "d_print"),
]

# Questions about nothing stored, on which the static model's floor was set (the
# benchmark's own OFF_TOPIC are held out).
OFF_TOPIC_DEV = [
    "banana bread recipe",
    "volcano eruption history",
    "best hiking boots for winter",
    "how tall is a giraffe",
    "knitting patterns for beginners",
    "who won the world cup in 1998",
    "symptoms of the common cold",
    "how to train a puppy to sit",
    "medieval castle architecture",
    "planting tomatoes in spring",
    "why is the sky blue",
    "famous impressionist painters",
    "how do bees make honey",
    "rules of chess castling",
    "ancient egyptian pyramids",
    "learn to play the violin",
    "best beaches in portugal",
    "how to fold a paper crane",
    "recipe for lemon cake",
    "migration of monarch butterflies",
    "how long to boil an egg",
    "capital city of australia",
    "best way to learn guitar chords",
    "train times from london to paris",
    "how many moons does jupiter have",
    "what do cats eat",
    "wedding dress shopping",
    "symptoms of hay fever",
    "football match results",
    "grow basil indoors",
    "poems by emily dickinson",
    "how to make sourdough starter",
    "the french revolution causes",
    "skiing holidays in the alps",
    "how to tie a tie",
    "dinosaur species list",
    "yoga poses for back pain",
    "how deep is the ocean",
    "origami frog instructions",
    "birthday party ideas for kids",
]
