"""The development set: paraphrase questions used to *choose* the ranking of issue #15
(centring, the two-step floor, and the pooling variants that were dropped), so that the
benchmark's own paraphrase buckets (bench/retrieval_set.py) stay held out.

``bench/retrieval_bench.py --dev`` runs it (these memories among the same distractors).
"""

from __future__ import annotations

from bench.retrieval_set import Labelled

DEV_MEMORIES = (
    Labelled("d_flags", "Feature toggles", "Unfinished features ship dark behind Unleash toggles until QA signs off."),
    Labelled("d_mono", "Monorepo", "All services live in one repository managed with Nx."),
    Labelled("d_owners", "Code owners", "Changes to the payments folder need approval from the billing team."),
    Labelled("d_http", "HTTP client", "Outgoing requests use httpx with a ten second timeout and three retries."),
    Labelled("d_pwd", "Password hashing", "Passwords are hashed with Argon2id; bcrypt hashes are upgraded at login."),
    Labelled("d_release", "Release notes", "The changelog is generated from conventional commit messages."),
    Labelled("d_dark", "Dark theme", "The interface follows the operating system's dark mode setting."),
    Labelled("d_upload", "File uploads", "Uploads larger than 50 MB go directly to S3 with presigned URLs."),
    Labelled("d_lunch", "Lunch", "Food is delivered to the office every Thursday at noon."),
    Labelled("d_parking", "Parking", "Visitors park in the underground garage; spaces are booked at the front desk."),
    Labelled("d_python", "Python version", "The backend targets Python 3.12 and uses uv to pin dependencies."),
    Labelled("d_queue", "Retries", "Failed webhook deliveries are retried with exponential backoff for a day."),
    Labelled("d_pager", "Escalation", "If nobody acknowledges a page within fifteen minutes the manager is called."),
    Labelled("d_photos", "Thumbnails", "Product photos are resized to three widths by a Lambda function."),
    Labelled("d_sql", "Raw SQL", "Avoid string formatting in queries; always pass bound parameters."),
    Labelled("d_docs", "API reference", "The OpenAPI spec is the source of truth; Redoc renders it."),
    Labelled("d_kids", "Parental leave", "Parents get sixteen weeks of paid leave after a birth or adoption."),
    Labelled("d_bike", "Cycling", "Bicycles can be locked in the courtyard racks; showers are on the ground floor."),
    Labelled("d_vpn", "Remote access", "Employees connect to internal tools through Tailscale."),
    Labelled("d_print", "Printer", "The colour printer near the kitchen jams when given thick card."),
)  # fmt: skip

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
]  # fmt: skip
