"""Deterministic synthetic corpus of agent "memories" about software projects.

Benchmarks need realistic, varied English text.  Each memory is assembled from many
sentence templates whose slots are filled from Zipf-weighted word lists (tools,
components, verbs in several forms, adjectives), invented identifiers
(``OrderService``, ``billing_worker``, ``fetchUserProfile``), paths, commands and
versions.  Standard library only; ``random.Random(seed)`` makes it reproducible.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from string import Formatter
from typing import Any

__all__ = ["SampleMemory", "generate", "project_paths", "sample_queries"]


def _w(text: str) -> list[str]:
    """Split a compact word list; '~' inside an entry stands for a space."""
    return [t.replace("~", " ") for t in text.split()]


def _t(block: str) -> list[str]:
    """Split a template block: one or more templates per line, separated by ' | '."""
    items = (t.strip() for line in block.strip().splitlines() for t in line.split(" | "))
    return [t for t in items if t]


# --- word lists: earlier entries are drawn more often (Zipf rank = position) --------------------
TOOLS = _w("""git Docker pytest npm make Python Node.js PostgreSQL Redis Kubernetes Terraform GitHub~Actions
webpack Vite ESLint Prettier black ruff mypy poetry pip uv tox pre-commit Jest Vitest Cypress Playwright React
Vue Django Flask FastAPI Celery SQLAlchemy alembic Pydantic requests httpx asyncio uvicorn gunicorn nginx Kafka
RabbitMQ Elasticsearch MongoDB MySQL SQLite DynamoDB Airflow dbt pandas Grafana Prometheus Sentry Datadog
OpenTelemetry Helm Argo~CD Ansible Pulumi Vault CircleCI Jenkins GitLab~CI Bazel Gradle Maven Cargo clippy
golangci-lint TypeScript Babel esbuild Rollup Turborepo pnpm Yarn Bun Deno Storybook Tailwind Sass Redux Zustand
GraphQL Apollo tRPC gRPC protobuf OpenAPI Swagger Postman curl jq Bash tmux Neovim VS~Code direnv asdf pyenv nvm
Homebrew systemd cron S3 EC2 Lambda CloudFront ECS EKS CloudWatch IAM SQS SNS Cloud~Run Cloudflare Vercel
Netlify Heroku Fly.io Firebase Supabase Auth0 Okta Keycloak Stripe Twilio SendGrid Segment Mixpanel LaunchDarkly
Unleash Dependabot Renovate Snyk Trivy SonarQube Codecov coverage.py hypothesis factory_boy responses moto
testcontainers LocalStack MinIO Memcached Varnish Sidekiq RQ Dramatiq Temporal Prefect MLflow PyTorch
scikit-learn ONNX Ray Dask Polars DuckDB Trino Flink Logstash Fluentd Kibana Tempo PagerDuty Rails RSpec Laravel
PHPUnit Spring~Boot JUnit Mockito Hibernate Quarkus Ktor Gin Echo Fiber cobra viper zap logrus Axum Actix Tokio
serde Diesel sqlx Prisma TypeORM Sequelize Knex Drizzle Mongoose Express Koa NestJS Fastify Socket.IO Electron
Tauri Flutter Expo Xcode CocoaPods SwiftLint ktlint Husky commitlint semantic-release Consul etcd Packer Vagrant
Nuxt Svelte Angular Mocha Selenium Jaeger Loki Traefik HAProxy Caddy Buildkite Nx Lerna Parcel MobX Thrift Avro
yq zsh IntelliJ PyCharm supervisord Fargate Route53 Pub/Sub Mailgun Amplitude VCR.py Resque Luigi Kubeflow Arrow
Parquet Presto Beam Vector Opsgenie Statuspage Sinatra Symfony Micronaut Chi SeaORM Hapi detekt Lefthook
Changesets goreleaser Debezium freezegun Fastlane Keda Flagsmith Zipkin Velero""")
RUNNERS = _w("pytest Jest Vitest go~test RSpec Mocha unittest cargo~test JUnit PHPUnit nose2 ava")
DBS = _w("PostgreSQL SQLite MySQL Redis MongoDB DynamoDB ClickHouse CockroachDB MariaDB Neo4j")
LANGS = _w("Python TypeScript Go JavaScript Rust Java Kotlin Ruby PHP Swift C# Elixir Scala Dart")
CIS = _w("GitHub~Actions GitLab~CI CircleCI Jenkins Buildkite Drone TeamCity Azure~Pipelines")
NOUNS = _w("""config build release cache queue endpoint schema table index worker pipeline job setting module
test package dependency file service container image cluster token key log metric alert dashboard request
response handler middleware router model view template component hook query migration fixture mock snapshot
report flag feature branch commit version script command function method class interface field column record
transaction connection pool session cookie header timeout retry limit quota threshold error exception warning
bug regression issue incident runbook checklist deployment rollout rollback replica shard partition topic
consumer producer event message webhook callback scheduler cron~job backup archive bucket upload stream buffer
parser serializer validator formatter linter compiler bundler runtime environment namespace workspace monorepo
directory path permission role policy secret certificate proxy load~balancer health~check probe lockfile
manifest changelog readme tutorial benchmark profiler trace span payload resolver selector reducer store adapter
client factory registry plugin extension wrapper helper utility constant enum decorator annotation generator
iterator coroutine thread process semaphore mutex deadlock leak allocation heap socket port host domain
subdomain keystore checksum hash signature nonce salt cursor offset watermark backlog heartbeat lease quorum
tombstone sidecar daemon shim polyfill codemod monkeypatch""")
COMPS = _w("""billing order payment checkout account auth search invoice user product cart notification email
session profile admin inventory catalog report analytics shipping subscription pricing customer login signup
settings onboarding audit export import sync upload media image video feed comment review rating booking
calendar schedule ticket support messaging chat geo location tracking gateway identity tenant workspace project
task sprint release refund ledger wallet transfer fraud risk compliance document thumbnail timeline reservation
helpdesk crm lead campaign newsletter routing telemetry ingestion etl forecast quote contract survey form wiki
blog cms translation localization currency tax payout merchant partner affiliate loyalty reward leaderboard
lobby coupon discount warehouse fulfillment returns shipment carrier courier recipe menu kitchen appointment
clinic patient prescription lab classroom course lesson quiz grading enrollment vehicle fleet trip driver
parking tollgate mailbox sms""")
ADJS = _w("""new old stable flaky slow fast legacy deprecated experimental internal external public private
shared global local remote default custom optional required async blocking stateless stateful persistent primary
secondary read-only cold warm hot large small critical minor nightly weekly manual automatic incremental full
partial strict verbose noisy brittle robust safe unsafe atomic concurrent parallel sequential lazy eager cached
stale fresh consistent distributed modular monolithic typed nullable immutable mutable readable canonical
temporary permanent hidden dirty clean broken healthy redundant duplicate orphaned dangling missing invalid
expired revoked encrypted signed compressed raw normalized sparse granular ephemeral hermetic reproducible
deterministic nondeterministic idempotent transactional versioned paginated throttled sharded replicated
mirrored pinned vendored generated handwritten undocumented underused overloaded misconfigured quiescent
byzantine""")
_VERBS = _w("""deploy=deployment run/runs/ran/running test use install=installation configure=configuration
migrate=migration update upgrade add remove rename refactor fix debug/debugs/debugged/debugging cache retry
validate=validation parse format lint compile=compilation bundle publish release tag/tags/tagged/tagging merge
rebase review approve=approval revert restart reload start stop schedule trigger queue process handle
log/logs/logged/logging monitor alert profile benchmark measure=measurement optimize=optimization
split/splits/split/splitting extract=extraction generate=generation seed mock stub/stubs/stubbed/stubbing patch
pin/pins/pinned/pinning bump lock export import sync backup restore archive delete=deletion purge
rotate=rotation encrypt=encryption decrypt sign verify=verification authenticate=authentication
authorize=authorization invalidate=invalidation warm index reindex query fetch load save store serialize render
hydrate paginate=pagination sort filter search throttle debounce batch stream compress=compression upload
download resize transcode notify=notification document annotate prefer/prefers/preferred/preferring avoid
require=requirement enable disable toggle expose mount provision scale replicate=replication vacuum
analyze=analysis snapshot clean prune check assert compare diff squash build/builds/built/building
set/sets/set/setting write/writes/wrote/writing drop/drops/dropped/dropping ship/ships/shipped/shipping
plan/plans/planned/planning commit/commits/committed/committing map/maps/mapped/mapping
wrap/wraps/wrapped/wrapping emit/emits/emitted/emitting submit/submits/submitted/submitting
rewrite/rewrites/rewrote/rewriting escalate=escalation reconcile=reconciliation memoize
instrument=instrumentation vendor quarantine deduplicate=deduplication shard""")
FNVERBS = _w("""get fetch load save create update delete build parse validate handle sync compute resolve render
apply find list send emit normalize ensure refresh reset format map merge""")
SUFFIXES = _w("""Service Worker Client Repository Controller Manager Handler Gateway Adapter Factory Provider
Resolver Validator Serializer Scheduler Consumer Producer Store Cache Queue Processor Builder Router Importer
Exporter Reconciler Syncer Notifier Dispatcher Registry Monitor""")
DIRS = _w("""src app lib scripts config docs deploy infra db/migrations migrations internal cmd pkg
.github/workflows charts k8s terraform web frontend backend api services packages/core packages/ui tools ops
alembic/versions tests/fixtures e2e fixtures proto bin notebooks tests""")
FILES = _w("""Makefile pyproject.toml package.json Dockerfile docker-compose.yml .env.example README.md
setup.cfg tsconfig.json package-lock.json .github/workflows/ci.yml conftest.py requirements.txt Cargo.toml
go.mod tox.ini alembic.ini .pre-commit-config.yaml justfile Procfile CHANGELOG.md vite.config.ts jest.config.js
pytest.ini values.yaml main.tf Chart.yaml .eslintrc.json serverless.yml CONTRIBUTING.md""")
EXTS = _w("py ts go yaml json rs tsx js toml sql sh md rb java kt proto tf cfg")
WHO = _w("""the~team the~user the~platform~team the~tech~lead the~backend~team the~frontend~team the~SRE~team
the~data~team Alice Bob Priya Wei Yuki Sofia Omar Dmitri Carmen Lars Aisha Mateo Hana Ravi""")
WHEN = _w("""every~night before~each~release on~Mondays after~merging~to~main every~hour on~deploy at~startup
once~a~week during~the~nightly~batch on~every~pull~request at~the~end~of~each~sprint""")
TAGS = _w("""python ci deploy db testing frontend backend api docker kubernetes terraform infra aws gcp azure
release typescript javascript go rust java kotlin ruby php swift sql bash helm e2e unit-tests postgres mysql
sqlite redis mongodb kafka queue caching search graphql grpc rest auth security secrets performance monitoring
logging metrics tracing alerts oncall incident networking dns tls cdn storage s3 backup migrations schema orm
data etl analytics ml docs onboarding style lint formatting types refactor tech-debt bug flaky dependencies
packaging build webpack vite react vue svelte django flask fastapi rails node npm pnpm poetry uv git github
gitlab review workflow branching conventions preferences tooling editor shell scripts makefile config env
feature-flags i18n accessibility ui ux mobile ios android desktop cli sdk billing payments checkout orders users
notifications email webhooks cron workers celery async concurrency timeouts retries rate-limiting pagination
memory cost compliance gdpr audit privacy todo howto debugging profiling local-dev""")
# content keyword -> tag (first matches win)
_RULES = """deploy:deploy migration:migrations test:testing docker:docker
kubectl:kubernetes helm:helm terraform:terraform postgres:postgres redis:redis kafka:kafka cache:caching
pipeline:ci github~actions:ci lint:lint secret:secrets token:auth log:logging metric:metrics alert:alerts
react:react python:python .py:python .ts:typescript .go:go .rs:rust frontend:frontend database:db schema:schema
feature~flag:feature-flags webhook:webhooks queue:queue timeout:timeouts retr:retries release:release
review:review benchmark:performance profil:profiling billing:billing payment:payments checkout:checkout
order:orders notification:notifications email:email auth:auth search:search docs:docs debug:debugging"""
_TAG_RULES = [tuple(r.split(":")) for r in _w(_RULES)]
CJK = _t("""
数据库连接池的大小设置为{num}。 | デプロイの前にテストを実行する。 | 生产环境的部署需要先通过{ci}。
测试请使用{tr}运行。 | このリポジトリでは{tool}を使う。 | {svc}のログは{tool}に送られる。
缓存在每次发布后都会清空。 | マイグレーションは`{dir}`にある。 | 用户更喜欢使用{tool}。
设置`{envvar}`后再运行{cmd}。 | 代码审查至少需要{num}个批准。 | ステージング環境のデータベースは{db}です。
请不要直接修改生产数据库。 | 配置文件在`{file}`里。 | テストが遅い場合は{tr}の並列実行を有効にする。
""")

# --- templates -----------------------------------------------------------------------------------
LEADS = {
    "knowledge": _t("""
The {comp} {noun} lives in `{dir}` and is owned by {who}. | The CI pipeline caches {dep} keyed on `{file}`.
Database migrations live in `{dir}` and run with {cmd}.
Deploy the app to {env} with {cmd}; it needs `{envvar}` set.
{svc} talks to {db} through {tool} and retries failed writes {num} times with exponential backoff.
`{fn}` in `{file}` is the entry point for {comp} {nouns}.
{svc} is {adj} and should not be {ved} during business hours.
The {env} database for {svc} is {db} {ver}; the connection pool size is {num} per {noun}.
Logs for {svc} go to {tool}; search by `request_id` when debugging {comp} issues.
The {comp} project uses {lang} {ver} with {tool} for dependency management and {tool2} for {ving}.
Feature flags for {comp} are managed in {tool}; the `{mod}` flag gates the new {noun}.
{comp} events are published to the `{mod}` topic and consumed by {svc}.
The `{mod}` module wraps {tool} and exposes `{fn}` for the rest of the code.
Staging mirrors {env} except that {comp} uses a {adj} {noun}.
Secrets such as `{envvar}` are stored in {tool} and loaded at startup by `{file}`.
The nightly job `{mod}` {vs} the {comp} {nouns} and writes a report to `{dir}`.
API endpoints for {comp} are defined in `{file}`; the OpenAPI spec is generated by {tool}.
{svc} runs on port {port} locally; start it with {cmd}.
The main branch of the {comp} repo is protected; merges need {num} approvals and a green {ci} build of {svc}.
Since {ver}, {tool} replaced {tool2} for {ving} {comp} {nouns}.
Error handling in {svc} maps {tool} exceptions to HTTP {code} responses.
The {comp} cache is invalidated whenever `{fn}` {vs} a {noun}; cache invalidation bugs show up as stale {nouns}.
Integration tests for {comp} spin up {db} with {tool} and take about {dur}.
Test fixtures for {comp} live in `{dir}`; regenerate them with {cmd}.
The {adj} {noun} in `{file}` is only kept for backward compatibility with {tool} {ver}.
{who} set up {ci} so that every pull request {vs} the {comp} {nouns} before merge.
Build artifacts for {svc} are uploaded to `{bucket}` and kept for {num} days.
The {comp} service exposes metrics at `/metrics`; dashboards for the {noun} live in {tool}.
Rate limiting for the {comp} API is {num} requests per minute per {noun}.
The database schema for {comp} is documented in `{file}`; the {noun} table has an index on `{col}`.
{tool} is pinned to {ver} in `{file}` because newer versions break {svc}.
When {ving} {comp} data, {svc} uses a {adj} transaction to avoid partial writes.
Code in `{dir}` is generated by {tool} from the {comp} {noun}; do not edit it by hand.
The {comp} worker processes jobs from the {tool} queue with a concurrency of {num}.
Timeouts for calls to {svc} are set to {dur} in `{file}`.
The {comp} incident in {ticket} was caused by a {adj} {noun} in {svc}.
The app reads configuration from `{file}` and falls back to environment variables like `{envvar}`.
{lang} code in this repo follows the conventions in `{file}`; {tool} enforces them in CI.
Webhooks from {tool} hit `{route}` and are verified with `{envvar}`.
The {comp} project depends on {tool}, {tool2} and {tool3}.
The pre-push hook in `{file}` runs the linter with {cmd}; the user wants it to pass before every push.
"""),
    "preference": _t("""
The user prefers {tr} over {tr2} for this repo; run the {comp} tests with {cmd}.
The user prefers {tool} over {tool2} for {ving} {comp} code.
Use {tr} as the test runner for this repo; the user does not want new {tr2} tests for {svc} in `{dir}`.
The user said they prefer {tr} as the test runner for this repo because {reason}.
Always use {tool} for formatting {lang} files in `{dir}`; the user dislikes manual formatting changes in {comp} reviews.
Prefer small, focused commits with messages like "{ticket}: {v} {comp} {noun}".
The user wants type hints on every public function in `{dir}`, including `{fn}`.
Keep {lang} functions like `{fn}` in `{mod}` short; the user prefers early returns over nested conditionals.
Do not add new dependencies to `{file}` without asking; the user prefers {tool} when a {noun} library is needed.
The user likes {adj} variable names such as `{mod}` rather than abbreviations.
Prefer `{fn}` over calling {tool} directly from {comp} code.
The user prefers {db} for local development of {svc} and wants {cmd} to reset it.
When writing tests for {comp}, the user prefers {adj} fixtures in `{file}` over mocks.
Name branches like `{branch}` and open draft pull requests early for {comp} work.
The user prefers {tool} to {tool2} for {comp} dashboards because {reason}.
Answers about {comp} should be short and include the exact command, e.g. {cmd}.
The user wants {ci} to fail on any {tool} warning in the {comp} code.
Prefer {lang} {ver} features; the user avoids {adj} syntax that {tool} cannot check.
The team prefers {ving} over {ving2} when the {comp} {noun} changes.
The user prefers running {cmd} before every push to `{branch}` instead of relying on {ci}.
For the {comp} project the user wants docs in `{dir}` written in plain Markdown.
Use {tr} with {tool} for {comp} tests; the user finds {tr2} too slow.
The user prefers deploying {svc} to {env} on {day} mornings and never on Fridays; {tool} tracks each {noun}.
"""),
    "task": _t("""
TODO: migrate {svc} from {tool} to {tool2} before {ver}. | Next step: {v} the {comp} {noun} and update `{file}`.
Task {ticket}: {v} `{fn}` so it handles {adj} {nouns}.
Open task: write tests for {svc} covering the {adj} {noun} path.
Pending: the {comp} migration in `{file}` needs to run in {env} after the {ver} release.
We still need to {v} the {adj} {nouns} in `{dir}`; see {ticket}.
Follow up on the flaky {tr} test in `{file}`; it fails about {pct} of the time on {ci} when {ving} {comp} {nouns}.
Blocked: {svc} cannot be deployed until {who} approves the {noun} change.
Remaining work for {comp}: {v} the {noun}, {v2} the {noun2} and update the docs.
Refactor `{mod}` to remove the {adj} dependency on {tool}.
Investigate why {cmd} takes {dur} on {ci} for {comp}.
Upgrade {tool} from {ver} to {ver2} across the {comp} packages.
Add a {noun} to {svc} that {vs} {comp} {nouns} {when}.
Clean up the {adj} {nouns} left behind by the {comp} migration ({ticket}).
Document how to {v} the {comp} {noun} in `{file}`.
Split `{file}` into smaller modules; it mixes {comp} and {comp2} logic.
Benchmark `{fn}` against the old {noun} implementation before merging {ticket}.
Rotate `{envvar}` in {env} and update the copy stored in {tool}.
Replace the {adj} {noun} in {svc} with {tool}. | Set up alerts in {tool} for {comp} {noun} errors above {pct}.
"""),
    "skill": _t("""
To deploy the app to {env}, run {cmd} and watch the rollout of {svc} in {tool}.
To run a single {comp} test, use {cmd}. | To reset the local {db} database, run {cmd} and then {cmd2}.
To debug {svc}, set `{envvar}=debug` and run {cmd}.
To reproduce {comp} bugs locally, load the fixtures with {cmd}.
To add a database migration for {comp}, run {cmd} and review the generated file in `{dir}`.
How to {v} the {comp} {noun}: run {cmd}, then check `{file}`. | To update snapshots for {comp} tests, run {cmd}.
To release a new version of {svc}, bump {ver} in `{file}` and run {cmd}.
To profile `{fn}`, wrap the call with {tool} and compare against the {adj} baseline.
To roll back a bad deployment of {svc}, run {cmd} with the previous image tag.
To regenerate the {tool} client for {comp}, run {cmd}; the output lands in `{dir}`.
To inspect the {comp} queue, run {cmd} against the {env} cluster. | Use {cmd} to tail {svc} logs in {env}.
To build the Docker image for {svc}, run {cmd} from the repo root.
To seed {env} with demo {comp} data, use {cmd}.
To check types and lint the {comp} code, run {cmd} followed by {cmd2}.
Recovering a stuck {comp} job: find it with {cmd}, then {v} it manually.
The command that runs the linter before a push is {cmd}; it is wired into the pre-push hook with {tool}.
"""),
}
EXTRAS = _t("""
It {vs} the {comp} {nouns} {when}. | This was changed in {ticket} after a {adj} {noun} caused problems in {env}.
The config file for this is `{file}`. | See `{file}` for details on the {noun}.
{tool} {ver} or newer is required. | The {noun} is {adj} and {adj2}, so avoid {ving} it in hot paths.
Owner: {who}. | Start with {cmd}. | It needs `{envvar}` set, otherwise {svc} falls back to the {adj} {noun}.
The old {noun} used {tool2}, which was {adj}. | Expect about {num} {nouns} per {unit} in {env}.
{svc} depends on this behaviour. | Unit coverage for this lives in `{file}`.
Make sure {db} is running locally before you start. | {who} confirmed this on {date}.
Last verified with {tool} {ver} on {date}. | If it fails, check the {tool} logs and retry with {cmd}.
This {vs} {comp} {nouns} in batches of {num}. | Do not {v} the {noun} directly; go through `{fn}`.
A {adj} {noun} here usually means the {comp} {noun2} is {adj2}.
The {comp} migration is {adj} and safe to rerun. | Deployments to {env} happen {when}.
The app reads `{envvar}` at startup. | {who} mentioned that {reason}.
Code review for {comp} changes is required from {who}. | The test suite takes about {dur} on {ci}.
Related: {svc}, `{mod}` and `{fn}`. | This is documented in the {comp} section of the project README.
We chose this because {reason}. | It is {adj} on {lang} {ver} but {adj2} on older versions.
Metrics for the {noun} are exported to {tool}. | Coverage for `{dir}` must stay above {pct}.
The {comp} team is {ving} the {noun} this quarter. | Use the `{branch}` branch for this work.
Keep the {noun} {adj}; {svc} assumes it. | Without this, {svc} {vs} every {noun} twice.
The fix shipped in {ver}. | Related files: `{file}` and `{file2}`. | Local URL: {url}.
Ask {who} before changing the {comp} {noun}. | The {env} environment uses a {adj} copy of the {comp} database.
The code path is covered by `{fn}` tests. | Build time dropped from {dur} to {dur2} after switching to {tool}.
This applies to every project that uses {tool}. | Note that `{mod}` is imported lazily to keep startup fast.
{tool2} was evaluated but {reason}. | Errors are reported to {tool} with the `{comp}` tag.
The default {noun} size in `{file}` is {num}. | {ving} the {noun} takes roughly {dur}.
The {vn} of {comp} {nouns} is {adj} in {env}.
""")
REASONS = _t("""
the old {tool8} setup was flaky | {tool8} is faster on large {comp8} {nouns8} | it keeps the {noun8} {adj8}
{tool8} does not support {lang8} {ver8} | the {env8} cluster has limited memory
{who8} found it easier to debug | it makes {ving8} the {noun8} easier to review
it avoids a {adj8} {noun8} in {svc8} | the license of {tool8} changed
the {comp8} tests kept timing out on {ci8} | it matches what the rest of the team uses
""")
INTROS = _t("""
Notes on {comp} {nouns}: | Checklist before {ving} {svc}: | {comp} {noun} setup: | Things to remember about {tool}:
Steps to {v} the {comp} {noun}: | Conventions for `{dir}`: | Known issues with {tool} {ver}:
Release steps for {comp}:
""")
BULLETS = _t("""
run {cmd} | update `{file}` | check the {tool} dashboard for {comp} errors | {v} the {adj} {nouns}
ask {who} to review | keep `{envvar}` out of the logs | tag the release as `v{ver}` | {tool} {ver} or newer
confirm {svc} is healthy in {env} | use `{fn}` instead of raw {tool} calls | fixtures live in `{dir}`
{comp} migrations must be {adj} | avoid {ving} {comp} {nouns} in request handlers
at most {num} retries, timeout {dur} | see {ticket} | document changes in `CHANGELOG.md` | {ving} happens {when}
never {v} the {env} database by hand | prefer {tool} over {tool2} | {comp} {nouns} are {adj}
bump `{mod}` in `{file}` | rerun {tr} with `-x` when it fails
""")
CMDS = _t("""
make {mk} | make {mk} ENV={envs} | npm run {mk} | npm test | pnpm {mk} | pytest {tdir} -k {pkg} | pytest -x -q {tdir}
uv run pytest -k {pkg} | tox -e {toxenv} | go test ./internal/{pkg}/... | cargo test -p {pkg}
bundle exec rspec spec/{pkg} | npx jest {pkg} | npx playwright test | ./scripts/deploy.sh --env {envs}
./scripts/{script}.sh --{flag} | docker compose up -d {pkg} | docker build -t {pkg}:{ver} .
kubectl rollout restart deployment/{pkg} | kubectl -n {envs} logs -f deploy/{pkg}
kubectl rollout undo deployment/{pkg} | terraform plan -var-file={envs}.tfvars
helm upgrade --install {pkg} charts/{pkg} -f values-{envs}.yaml | alembic upgrade head
npx prisma migrate deploy | alembic revision --autogenerate -m "{pkg} {mk}" | python manage.py migrate {pkg}
pre-commit run --all-files | ruff check --fix src/{pkg} | mypy src/{pkg}
aws s3 sync dist s3://{pkg}-assets-{envs} | just {mk} | celery -A {pkg} worker -l info | ./gradlew :{pkg}:test
""")
TITLES = _t("""
{tool} usage in {comp} | {tool} vs {tool2} decision | {tool} setup notes | Working with {tool} here
{comp} {noun} notes | The {comp} {noun} | {svc} overview | {svc} behavior and quirks | About the {mod} module
{fn} details | {db} configuration for {env} | {env} deployment notes | Deploying {svc} to {env}
Test runner preference: {tr} | {tr} vs {tr2} for tests | Testing {comp} with {tr} | {lang} {ver} conventions
Files under {dir} | Config in {file} | Handling of {envvar} | {ticket} follow-up | {ci} pipeline notes
{comp} {nouns} in {svc} | {adj} {noun} in {comp} | {ving} {comp} {nouns} | How {svc} uses {tool}
{comp} and {comp2} boundaries
""")
PREFIX = {
    "knowledge": ["Note:", "FYI:"],
    "preference": ["Preference:", "Convention:", "Style:"],
    "task": ["TODO:", "Task:", "Follow-up:"],
    "skill": ["How-to:", "Recipe:", "Runbook:"],
}
QUALIFIERS = _t("""
(see {ticket}) | for the {comp} {noun} | since {ver} | according to {who} | in the {adj} {comp} setup
as of {date} | unless `{envvar}` is set | when {ving} {comp} {nouns} | on the `{branch}` branch
until the {adj} {noun} is {ved} | except for {svc} | (details in `{file}`) | while {tool} {vs} the {nouns}
""")
TOPIC = ("comp", "svc", "tool", "env", "db", "lang", "tr", "ci")  # shared by a memory's sentences


# --- slot generators -----------------------------------------------------------------------------
class _Z:
    """Zipf-weighted sampler over a list (rank = list position)."""

    def __init__(self, items: list, s: float = 1.0) -> None:
        self.items, acc, self.cum = items, 0.0, []
        for i in range(len(items)):
            acc += 1.0 / (i + 1) ** s
            self.cum.append(acc)
        self.tot = acc

    def __call__(self, sl: _Slots) -> Any:
        return self.items[bisect(self.cum, sl.r.random() * self.tot)]


class _Slots(dict):
    """Lazily filled template slots: {tool} and {tool2} are independent draws, reused on repeat."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.r = rng

    def __missing__(self, key: str) -> str:
        base = key.rstrip("0123456789")
        val = _GEN[base](self)
        for _ in range(4):  # {tool2} should differ from {tool}
            if base == key or base not in self or val != self[base]:
                break
            val = _GEN[base](self)
        self[key] = val
        return val


def _conj(entry: str) -> tuple[str, ...]:
    """(base, 3rd person, past, -ing, noun) for 'deploy=deployment' or 'run/runs/ran/running'."""
    entry, _, noun = entry.partition("=")
    if "/" in entry:
        b, s, p, g = entry.split("/")
    else:
        b = entry
        cy = b.endswith("y") and b[-2] not in "aeiou"
        s = b[:-1] + "ies" if cy else b + ("es" if b.endswith(("s", "x", "z", "ch", "sh")) else "s")
        p = b[:-1] + "ied" if cy else b + ("d" if b.endswith("e") else "ed")
        g = (b[:-1] if b.endswith("e") and not b.endswith("ee") else b) + "ing"
    return b, s, p, g, noun or g


def _plural(n: str) -> str:
    if n.endswith(("s", "x", "z", "ch", "sh")):
        return n + "es"
    return n[:-1] + "ies" if n.endswith("y") and n[-2] not in "aeiou" else n + "s"


def _pas(s: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in s.replace("-", " ").split())


def _pick(items: list[str]) -> Callable[[_Slots], str]:
    return lambda s: s.r.choice(items)


VERBS = [_conj(v) for v in _VERBS]
_vz = _Z(VERBS, 0.8)
_tool, _comp, _noun, _adj = _Z(TOOLS, 0.8), _Z(COMPS, 0.8), _Z(NOUNS, 0.8), _Z(ADJS, 0.8)
_fnv, _suf, _dirs, _files, _exts = _Z(FNVERBS), _Z(SUFFIXES), _Z(DIRS), _Z(FILES), _Z(EXTS)
_cmds, _reasons = _Z(CMDS, 0.5), _Z(REASONS, 0.3)
_PROJ = _w("BILL OPS PLAT WEB CORE DATA SEC API")


def _pkg(s: _Slots) -> str:
    return _comp(s).replace(" ", "-")


def _file(s: _Slots) -> str:
    r = s.r.random()
    if r < 0.3:
        return _files(s)
    d = _dirs(s) if r < 0.75 else f"{_dirs(s)}/{_pkg(s)}"
    stem = f"{_comp(s)}_{_noun(s)}".replace(" ", "_")
    return f"{d}/{'test_' if d.startswith('test') else ''}{stem}.{_exts(s)}"


def _envvar(s: _Slots) -> str:
    if s.r.random() < 0.4:
        return s.r.choice(("DATABASE_URL", "AWS_PROFILE", "REDIS_URL", "LOG_LEVEL", "SENTRY_DSN"))
    suffix = s.r.choice(("API_KEY", "URL", "TOKEN", "SECRET", "TIMEOUT"))
    return f"{_comp(s)}_{suffix}".upper().replace(" ", "_")


def _ver(s: _Slots) -> str:
    major = s.r.choice((0, 1, 1, 2, 2, 3, 4, 5, 8, 12, 16, 18, 20))
    return f"{major}.{s.r.randint(0, 24)}.{s.r.randint(0, 15)}"


def _num(s: _Slots) -> str:
    return str(s.r.choice((2, 3, 5, 8, 10, 20, 25, 50, 100, 200, 500, s.r.randint(1, 999))))


# fmt: off
_GEN: dict[str, Callable[[_Slots], str]] = {
    "tool": _tool, "tr": _Z(RUNNERS, 1.1), "db": _Z(DBS, 1.1), "lang": _Z(LANGS, 1.1),
    "ci": _Z(CIS, 1.2), "comp": _comp, "noun": _noun, "adj": _adj, "file": _file, "ver": _ver,
    "envvar": _envvar, "num": _num, "pkg": _pkg, "env": _Z(_w("production staging dev QA sandbox")),
    "envs": _Z(_w("prod staging dev qa")), "who": _Z(WHO), "when": _pick(WHEN),
    "nouns": lambda s: _plural(_noun(s)),
    "v": lambda s: _vz(s)[0], "vs": lambda s: _vz(s)[1], "ved": lambda s: _vz(s)[2],
    "ving": lambda s: _vz(s)[3], "vn": lambda s: _vz(s)[4],
    "svc": lambda s: _pas(_comp(s)) + (_pas(_noun(s)) if s.r.random() < 0.2 else "") + _suf(s),
    "mod": lambda s: f"{_comp(s)}_{_suf(s).lower() if s.r.random() < 0.6 else _noun(s)}".replace(
        " ", "_"
    ),
    "fn": lambda s: _fnv(s) + _pas(_comp(s)) + _pas(_noun(s)),
    "dir": lambda s: _dirs(s) if s.r.random() < 0.7 else f"{_dirs(s)}/{_pkg(s)}",
    "cmd": lambda s: "`" + _cmds(s).format_map(_Slots(s.r)) + "`",
    "pct": lambda s: f"{s.r.randint(1, 95)}%", "port": lambda s: str(s.r.randint(3000, 9999)),
    "code": _pick(_w("400 404 409 422 429 500 503")),
    "dur": lambda s: f"{s.r.randint(2, 59)} {s.r.choice(('seconds', 'minutes', 'ms'))}",
    "ticket": lambda s: f"{s.r.choice(_PROJ)}-{s.r.randint(10, 9999)}",
    "reason": lambda s: _reasons(s).format_map(s),
    "unit": _pick(_w("second minute hour day request tenant")),
    "branch": lambda s: f"{s.r.choice(('feature', 'fix', 'chore'))}/{_pkg(s)}-{_noun(s)}".replace(" ", "-"),
    "url": lambda s: f"http://localhost:{s.r.randint(3000, 9999)}/{_pkg(s)}",
    "route": lambda s: f"/api/v{s.r.randint(1, 3)}/{_pkg(s)}/{_plural(_noun(s))}".replace(" ", "-"),
    "bucket": lambda s: f"s3://{_pkg(s)}-{s.r.choice(('artifacts', 'builds', 'backups'))}",
    "col": lambda s: f"{_comp(s)}_{s.r.choice(('id', 'created_at', 'status'))}".replace(" ", "_"),
    "dep": _pick(_w("node_modules .venv ~/.cache/pip target/ .gradle vendor/bundle ~/.npm")),
    "day": _pick(_w("Monday Tuesday Wednesday Thursday")),
    "date": lambda s: f"20{s.r.randint(21, 25)}-{s.r.randint(1, 12):02d}-{s.r.randint(1, 28):02d}",
    "mk": _pick(_w("test lint build dev fmt check migrate seed docs release bench up e2e deploy serve")),
    "tdir": _pick(_w("tests/unit tests/integration src e2e")),
    "toxenv": _pick(_w("py311 lint docs type")), "flag": _pick(_w("dry-run verbose force skip-tests")),
    "script": _pick(_w("deploy seed reset-db bootstrap release backup restore rotate-keys smoke-test")),
}
# fmt: on


def _slots_of(t: str) -> frozenset[str]:
    return frozenset(f for _, f, _, _ in Formatter().parse(t) if f)


_TITLE_FOR = {
    t: [tt for tt in TITLES if _slots_of(tt) <= _slots_of(t)] or ["{comp} {noun} notes"]
    for ts in LEADS.values()
    for t in ts
}
_tagz = _Z(TAGS, 0.9)
assert all(t in TAGS for _, t in _TAG_RULES)


@dataclass(frozen=True)
class SampleMemory:
    """One synthetic memory as an agent might store it."""

    title: str
    content: str
    category: str
    importance: int
    tags: list[str]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:] if s and s[0].islower() else s


def _one(r: random.Random) -> SampleMemory:
    cat = r.choices(("knowledge", "preference", "task", "skill"), (46, 26, 17, 11))[0]
    sl = _Slots(r)
    lead = r.choice(LEADS[cat])
    parts = [_cap(lead.format_map(sl))]
    child = _Slots(r)  # later sentences share the topic but draw fresh details
    child.update((k, sl[k]) for k in TOPIC if k in sl)
    x, sep = r.random(), " "
    if x < 0.12 or r.random() < 0.2:  # qualify the lead sentence, always when it stands alone
        quals = " ".join(q.format_map(child) for q in r.sample(QUALIFIERS, 1 + (x < 0.12)))
        parts[0] = f"{parts[0][:-1]} {quals}{parts[0][-1]}"
    if x < 0.12:
        pass
    elif x < 0.28:
        sep = "\n"
        if r.random() < 0.5:
            parts = [_cap(r.choice(INTROS).format_map(sl))]
        parts += ["- " + b.format_map(child) for b in r.sample(BULLETS, r.randint(3, 7))]
    else:
        k = r.choices((1, 2, 3, 4, 5, 6, 8, 11), (10, 20, 22, 17, 12, 8, 7, 4))[0]
        parts += [_cap(e.format_map(child)) for e in r.sample(EXTRAS, k)]
        if x > 0.93:
            block = "Example:\n```\n" + child["cmd9"].strip("`") + "\n```\n"
            parts.insert(r.randint(1, len(parts)), block)
    if r.random() < 0.01:
        parts.append(r.choice(CJK).format_map(child))
    text = sep.join(parts).replace("\n ", "\n").strip()
    while len(text) < 60:
        text += " " + _cap(r.choice(EXTRAS).format_map(child))
    while len(text) > 900:
        parts.pop()
        text = sep.join(parts).replace("\n ", "\n").strip()
    title = r.choice(_TITLE_FOR[lead]).format_map(sl).replace("`", "")
    if r.random() < 0.35:
        title = r.choice(PREFIX[cat]) + " " + title
    words = title.split() + ["notes", "and", "details"]  # padding only used if the title is short
    title = _cap(" ".join(words[: max(3, min(10, len(words) - 3))]))
    low = text.lower()
    want = r.choices((0, 1, 2, 3, 4), (8, 24, 32, 23, 13))[0]
    tags: list[str] = []
    for kw, tag in _TAG_RULES:
        if len(tags) >= want:
            break
        if kw in low and tag not in tags:
            tags.append(tag)
    while len(tags) < want:
        if (t := _tagz(sl)) not in tags:
            tags.append(t)
    imp = r.choices(range(11), (3, 4, 6, 12, 17, 18, 15, 11, 7, 4, 3))[0]
    return SampleMemory(title, text, cat, imp, tags)


def generate(count: int, seed: int = 0) -> Iterator[SampleMemory]:
    """Yield `count` varied sample memories; same seed -> same output. 100,000 take a few seconds."""
    r = random.Random(seed)
    seen: set[str] = set()
    for _ in range(count):
        for _attempt in range(20):  # an exact duplicate (case/space-normalised) is re-drawn
            m = _one(r)
            key = " ".join(m.content.lower().split())
            if key not in seen:
                break
        seen.add(key)
        yield m


def project_paths(count: int, seed: int = 0) -> list[str]:
    """count distinct, realistic absolute POSIX project paths like /home/dev/src/billing-api."""
    r = random.Random(seed)
    users = _w("dev alice bob priya wei yuki sofia omar ci build runner")
    orgs = _w("acme initech globex umbrella hooli stark wayne tyrell cyberdyne soylent")
    roots = _w("""/home/{u}/src /home/{u}/code /home/{u}/projects /Users/{u}/work /Users/{u}/Developer /srv/apps
    /opt/{o} /home/{u}/src/github.com/{o} /workspace/{o} /home/{u}/repos""")
    suffixes = _w("""api service web app cli worker sdk dashboard infra frontend backend ui docs bot gateway
    pipeline tools mobile site core lib""")
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < count:
        name = COMPS[r.randrange(len(COMPS))]
        name = f"{name}-{r.choice(suffixes)}" if r.random() < 0.85 else f"{r.choice(orgs)}-{name}"
        path = r.choice(roots).format(u=r.choice(users), o=r.choice(orgs)) + "/" + name
        while path in seen:
            path = f"{path}-{r.randint(2, 99)}"
        seen.add(path)
        out.append(path)
    return out


def sample_queries() -> dict[str, list[str]]:
    """Query classes for search benchmarks: "rare", "two_words", "prefix" (ending in *), "natural"."""
    return {
        "rare": _w(
            "debezium goreleaser fastlane opsgenie micronaut freezegun changesets quiescent "
            "byzantine tollgate"
        ),
        "two_words": _w(
            "database~migration test~runner deploy~production docker~image "
            "cache~invalidation feature~flags error~handling connection~pool "
            "pull~request integration~tests"
        ),
        "prefix": _w("deplo* migra* confi* datab* authe* cach* pipel* refac* bench* valid*"),
        "natural": [
            "how do we deploy the app to production?",
            "which test runner does the user prefer for this repo?",
            "where do the database migrations live?",
            "how do I reset the local database?",
            "what command runs the linter before a push?",
            "why is the test suite so slow on CI?",
            "where are secrets like the API key stored?",
            "how do I roll back a bad deployment?",
            "what does the user prefer for formatting python files?",
            "how are feature flags managed in this project?",
        ],
    }


if __name__ == "__main__":  # python -m bench.corpus: timing and a few samples
    import time

    t0 = time.perf_counter()
    items = list(generate(100_000))
    print(f"generated {len(items):,} memories in {time.perf_counter() - t0:.2f}s")
    for m in items[:5]:
        print(f"- [{m.category}/{m.importance}] {m.title} {m.tags}\n  {m.content!r}")
