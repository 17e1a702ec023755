"""Scenarios for ``hint_eval.py``: a task, a tool and a call that fit each failure.

A failure only reads as real when the tool that failed could have produced it: an "Invalid
model" error belongs to a text-generation tool, a "NoSuchKey" to an object-storage read. So a
corpus case gets the scenario of its provider's domain (:func:`domain_of`, by words in the
provider's name), worded for that provider. A self-correctable case whose body names the value
that was wrong also gets a call carrying that value (:data:`FITS`), so that a fix is possible
at all; where the API names the argument, that is its known fix. The same scenario and call are
used for every text the model is shown, raw ones included.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


def tool(name: str, description: str, /, **params: tuple[str, str]) -> dict[str, Any]:
    """An OpenAI-style function tool whose parameters are all required."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    key: {"type": kind, "description": text} for key, (kind, text) in params.items()
                },
                "required": list(params),
            },
        },
    }


@dataclass(frozen=True)
class Scenario:
    """A user task, the tool the model called for it, and a look-up tool beside it."""

    name: str
    task: str
    tool: dict[str, Any]
    lookup: dict[str, Any]
    call: dict[str, Any]

    @property
    def tool_name(self) -> str:
        return str(self.tool["function"]["name"])

    @property
    def lookup_name(self) -> str:
        return str(self.lookup["function"]["name"])

    def for_provider(self, provider: str) -> Scenario:
        """The scenario worded for one provider: ``{p}`` in the task names it.

        The tools' descriptions name no provider, so that every case of a domain shares the
        prompt's head (system prompt and tools), which the server keeps evaluated.
        """
        short = provider.split(" (", maxsplit=1)[0]
        return replace(self, task=self.task.replace("{p}", short or "the API"))


S = Scenario
_LOOKUP_Q = ("string", "Name, id or words to search for.")

DOMAINS: dict[str, Scenario] = {
    s.name: s
    for s in (
        S(
            "llm",
            "Use {p} to translate docs/guide.md into German and save the result as "
            "docs/guide.de.md.",
            tool(
                "generate_text",
                "Run a prompt on a hosted language model over a file; writes the output.",
                model=("string", "Model name."),
                prompt=("string", "Instruction for the model."),
                input_file=("string", "File whose text is appended to the prompt."),
                output_file=("string", "Where to write the model's output."),
                max_tokens=("integer", "Most tokens to generate."),
            ),
            tool("list_models", "List the models available.", query=_LOOKUP_Q),
            {
                "model": "llama-3.1-8b-instruct",
                "prompt": "Translate into German.",
                "input_file": "docs/guide.md",
                "output_file": "docs/guide.de.md",
                "max_tokens": 4000,
            },
        ),
        S(
            "payments",
            "Charge customer cus_4821 (Acme Ltd) 120 euros for the May retainer with {p}.",
            tool(
                "create_charge",
                "Charge a saved customer's payment method.",
                customer_id=("string", "The customer id, like cus_123."),
                amount_cents=("integer", "Amount in the currency's minor unit."),
                currency=("string", "Three-letter ISO 4217 code."),
                description=("string", "Statement text."),
            ),
            tool("find_customer", "Search customers by name or email.", query=_LOOKUP_Q),
            {
                "customer_id": "cus_4821",
                "amount_cents": 12000,
                "currency": "EUR",
                "description": "May retainer",
            },
        ),
        S(
            "accounting",
            "In {p}, invoice ABC Ltd (billing@abc.example) 450 GBP for the October audit, due "
            "2026-12-31.",
            tool(
                "create_invoice",
                "Create a sales invoice.",
                contact_name=("string", "The customer's name."),
                contact_email=("string", "The customer's billing email."),
                amount=("number", "Total, in the currency's major unit."),
                currency=("string", "Three-letter ISO 4217 code."),
                due_date=("string", "YYYY-MM-DD."),
            ),
            tool("find_contact", "Search contacts.", query=_LOOKUP_Q),
            {
                "contact_name": "ABC Ltd",
                "contact_email": "billing@abc.example",
                "amount": 450,
                "currency": "GBP",
                "due_date": "2026-12-31",
            },
        ),
        S(
            "chat",
            "Post 'Deploy finished' to the ops channel on {p}.",
            tool(
                "send_message",
                "Post a message to a channel.",
                channel=("string", "Channel name or id."),
                text=("string", "Message text."),
            ),
            tool("list_channels", "List the channels.", query=_LOOKUP_Q),
            {"channel": "ops", "text": "Deploy finished"},
        ),
        S(
            "sms",
            "Text +14155550123 'Your table is ready' from our AcmeDiner sender, with {p}.",
            tool(
                "send_sms",
                "Send a text message.",
                sender=("string", "Sender id or number."),
                to=("string", "Recipient number, E.164."),
                text=("string", "Message text."),
            ),
            tool(
                "list_senders",
                "List the sender ids and numbers on the account.",
                query=_LOOKUP_Q,
            ),
            {"sender": "AcmeDiner", "to": "+14155550123", "text": "Your table is ready"},
        ),
        S(
            "email",
            "Email dana@example.com with {p}: subject 'Your report', text 'The Q3 report is "
            "attached.'",
            tool(
                "send_email",
                "Send an email.",
                to=("string", "Recipient address."),
                subject=("string", "Subject line."),
                text=("string", "Plain-text body."),
            ),
            tool("find_contact", "Search the address book.", query=_LOOKUP_Q),
            {
                "to": "dana@example.com",
                "subject": "Your report",
                "text": "The Q3 report is attached.",
            },
        ),
        S(
            "newsletter",
            "Subscribe dana@example.com (first name Dana) to our newsletter list in {p}.",
            tool(
                "add_subscriber",
                "Add a subscriber to a audience.",
                list_id=("string", "Audience or list id."),
                email=("string", "Subscriber's email."),
                first_name=("string", "Subscriber's first name."),
            ),
            tool("list_audiences", "List the audiences.", query=_LOOKUP_Q),
            {"list_id": "newsletter", "email": "dana@example.com", "first_name": "Dana"},
        ),
        S(
            "storage",
            "Read data/report.csv from the my-bucket bucket on {p} and tell me how many rows it "
            "has.",
            tool(
                "get_object",
                "Download an object from a storage bucket.",
                bucket=("string", "Bucket or container name."),
                key=("string", "Object key or path."),
            ),
            tool(
                "list_objects",
                "List the objects in a bucket.",
                bucket=("string", "Bucket name."),
                prefix=("string", "Key prefix."),
            ),
            {"bucket": "my-bucket", "key": "data/report.csv"},
        ),
        S(
            "database",
            "Save product p-1 (Desk lamp, 39 euros) in the products table on {p}.",
            tool(
                "put_item",
                "Write one record to a table, collection or index.",
                table=("string", "Table, collection or index name."),
                item=("object", "The record, with its id."),
            ),
            tool("describe_table", "Show a table's key and fields.", table=_LOOKUP_Q),
            {"table": "products", "item": {"id": "p-1", "name": "Desk lamp", "price": 39}},
        ),
        S(
            "query",
            "How many orders were placed on 2026-12-04? Look it up in {p}.",
            tool(
                "run_query",
                "Run a read-only query.",
                dataset=("string", "Dataset, database or index."),
                query=("string", "The query."),
            ),
            tool("list_tables", "List the tables in a dataset.", dataset=_LOOKUP_Q),
            {"dataset": "shop", "query": "SELECT COUNT(*) FROM orders WHERE day = '2026-12-04'"},
        ),
        S(
            "deploy",
            "Deploy the grafana service (image grafana/grafana:11.1, 2 replicas) on {p}.",
            tool(
                "deploy_service",
                "Create or update a service.",
                name=("string", "Service name."),
                image=("string", "Container image."),
                replicas=("integer", "How many instances."),
                region=("string", "Region or cluster."),
            ),
            tool("list_services", "List the services.", query=_LOOKUP_Q),
            {
                "name": "grafana",
                "image": "grafana/grafana:11.1",
                "replicas": 2,
                "region": "eu-west-1",
            },
        ),
        S(
            "events",
            "Publish the order.shipped event for order 58213 to the orders topic on {p}.",
            tool(
                "publish_event",
                "Publish a message to a topic or queue.",
                topic=("string", "Topic or queue name."),
                payload=("object", "The message."),
            ),
            tool("list_topics", "List the topics and queues.", query=_LOOKUP_Q),
            {"topic": "orders", "payload": {"type": "order.shipped", "order_id": "58213"}},
        ),
        S(
            "function",
            "Run the resize-images function on {p} for the upload batch b-77.",
            tool(
                "invoke_function",
                "Invoke a serverless function or workflow.",
                function_name=("string", "Function or workflow name."),
                payload=("object", "Input."),
            ),
            tool("list_functions", "List the functions and workflows.", query=_LOOKUP_Q),
            {"function_name": "resize-images", "payload": {"batch": "b-77"}},
        ),
        S(
            "secrets",
            "Read the db-password secret from the prod vault on {p}, so the migration can run.",
            tool(
                "get_secret",
                "Read a secret's current value.",
                vault=("string", "Vault or store name."),
                name=("string", "Secret name."),
            ),
            tool("list_secrets", "List the secret names in a vault.", vault=_LOOKUP_Q),
            {"vault": "prod", "name": "db-password"},
        ),
        S(
            "kms",
            "Encrypt the string 'launch-code-7' with our app key on {p}.",
            tool(
                "encrypt",
                "Encrypt a short string with a key.",
                key_id=("string", "Key id, ARN or alias."),
                plaintext=("string", "Text to encrypt."),
            ),
            tool("list_keys", "List the keys and aliases.", query=_LOOKUP_Q),
            {"key_id": "alias/app-key", "plaintext": "launch-code-7"},
        ),
        S(
            "identity",
            "Create a login on {p} for our new colleague dana@example.com.",
            tool(
                "create_user",
                "Create a user account.",
                email=("string", "The user's email."),
                display_name=("string", "Name shown to others."),
            ),
            tool("find_user", "Search users.", query=_LOOKUP_Q),
            {"email": "dana@example.com", "display_name": "Dana"},
        ),
        S(
            "code",
            "Open an issue in acme/webapp on {p}: 'Login button misaligned on Safari'.",
            tool(
                "create_issue",
                "Open an issue in a repository or project.",
                repo=("string", "owner/name."),
                title=("string", "Issue title."),
                body=("string", "Details."),
            ),
            tool("search_repos", "Search repositories.", query=_LOOKUP_Q),
            {
                "repo": "acme/webapp",
                "title": "Login button misaligned on Safari",
                "body": "On Safari 17 the login button overlaps the footer.",
            },
        ),
        S(
            "packages",
            "What is the latest released version of the requests-toolbelt package on {p}?",
            tool(
                "get_package",
                "Fetch a package's metadata.",
                name=("string", "Package name."),
            ),
            tool("search_packages", "Search packages.", query=_LOOKUP_Q),
            {"name": "requests-toolbelt"},
        ),
        S(
            "tickets",
            "Open a high-priority ticket in the Support project on {p}: 'Checkout fails for "
            "EU cards'.",
            tool(
                "create_ticket",
                "Create a ticket, task or item.",
                project=("string", "Project, board or queue."),
                subject=("string", "Title."),
                description=("string", "Details."),
                priority=("string", "low, medium, high or urgent."),
            ),
            tool("list_projects", "List the projects and boards.", query=_LOOKUP_Q),
            {
                "project": "Support",
                "subject": "Checkout fails for EU cards",
                "description": "Since 10:00 UTC every EU card payment is declined at checkout.",
                "priority": "high",
            },
        ),
        S(
            "pages",
            "Publish a page 'Release notes 4.2' (slug release-notes-4-2) on our {p} site.",
            tool(
                "create_page",
                "Create a page or item.",
                site=("string", "Site, workspace or collection."),
                title=("string", "Title."),
                slug=("string", "URL slug."),
                content=("string", "Body text."),
            ),
            tool("list_sites", "List the sites and collections.", query=_LOOKUP_Q),
            {
                "site": "acme-docs",
                "title": "Release notes 4.2",
                "slug": "release-notes-4-2",
                "content": "Faster search, and dark mode.",
            },
        ),
        S(
            "crm",
            "Add Dana Reyes (dana@example.com, Globex) as a new contact in {p}.",
            tool(
                "create_contact",
                "Create a contact or lead.",
                name=("string", "Full name."),
                email=("string", "Email."),
                company=("string", "Company."),
            ),
            tool("find_contact", "Search contacts.", query=_LOOKUP_Q),
            {"name": "Dana Reyes", "email": "dana@example.com", "company": "Globex"},
        ),
        S(
            "social",
            "Post 'We are hiring backend engineers' on our company page with {p}.",
            tool(
                "publish_post",
                "Publish a post on a page.",
                page_id=("string", "Page or organisation id."),
                text=("string", "Post text."),
            ),
            tool("list_pages", "List the pages this account manages.", query=_LOOKUP_Q),
            {"page_id": "acme", "text": "We are hiring backend engineers"},
        ),
        S(
            "commerce",
            "Where is my order 58213 from the {p} store? My email is dana@example.com.",
            tool(
                "get_order",
                "Fetch an order and its shipping status.",
                order_id=("string", "The order number."),
            ),
            tool("list_orders", "List a customer's orders by email.", email=("string", "Email.")),
            {"order_id": "58213"},
        ),
        S(
            "metrics",
            "What was the p95 API latency over the last hour? Check {p}.",
            tool(
                "query_metrics",
                "Query metrics or logs.",
                query=("string", "The query."),
                minutes=("integer", "How far back to look."),
            ),
            tool("list_metrics", "List the metric names.", query=_LOOKUP_Q),
            {"query": "SELECT percentile(duration, 95) FROM Transaction", "minutes": 60},
        ),
        S(
            "alerts",
            "Close alert 7731 on {p}: the disk was cleaned up.",
            tool(
                "close_alert",
                "Close an alert or incident.",
                alert_id=("string", "Alert id."),
                note=("string", "Why it is closed."),
            ),
            tool("list_alerts", "List the open alerts.", query=_LOOKUP_Q),
            {"alert_id": "7731", "note": "Disk cleaned up."},
        ),
        S(
            "analytics",
            "Record a 'checkout_completed' event for user u-118 in {p}.",
            tool(
                "track_event",
                "Send an analytics event.",
                event=("string", "Event name."),
                user_id=("string", "User id."),
                properties=("object", "Event properties."),
            ),
            tool("list_events", "List the event names in use.", query=_LOOKUP_Q),
            {"event": "checkout_completed", "user_id": "u-118", "properties": {"total": 42.5}},
        ),
        S(
            "chain",
            "Send 0.05 ETH from the treasury wallet to 0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063 "
            "via {p}.",
            tool(
                "send_transaction",
                "Sign and send a transaction from the treasury wallet.",
                to=("string", "Recipient address."),
                value_eth=("number", "Amount in ETH."),
                nonce=("integer", "The wallet's transaction count."),
                gas_price_gwei=("number", "Gas price in gwei."),
            ),
            tool("get_account", "Show a wallet's balance and next nonce.", address=_LOOKUP_Q),
            {
                "to": "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
                "value_eth": 0.05,
                "nonce": 5,
                "gas_price_gwei": 30,
            },
        ),
        S(
            "rpc",
            "Ask the {p} service for the status of job 991 (method job.status).",
            tool(
                "rpc_call",
                "Call a method.",
                method=("string", "Method name."),
                params=("object", "Named parameters."),
            ),
            tool("list_methods", "List the methods the service offers.", query=_LOOKUP_Q),
            {"method": "job.status", "params": {"job_id": 991}},
        ),
        S(
            "files",
            "Show me what is in notes/todo.md in my project ({p}).",
            tool(
                "read_file",
                "Read a text file.",
                path=("string", "Absolute or project-relative path."),
            ),
            tool("list_directory", "List a directory.", path=("string", "Directory.")),
            {"path": "/home/user/project/notes/todo.md"},
        ),
        S(
            "fetch",
            "Fetch https://example.com/changelog and tell me what changed in version 2.3 ({p}).",
            tool(
                "fetch_url",
                "Fetch a web page as text.",
                url=("string", "The URL."),
                max_length=("integer", "Most characters to return."),
            ),
            tool("web_search", "Search the web.", query=_LOOKUP_Q),
            {"url": "https://example.com/changelog", "max_length": 5000},
        ),
        S(
            "browser",
            "On the open sign-up page, click the Submit button ({p}).",
            tool(
                "browser_click",
                "Click an element of the current page.",
                element=("string", "What the element is, in words."),
                ref=("string", "The element's ref from the last page snapshot."),
            ),
            tool(
                "browser_snapshot",
                "Take a new snapshot of the current page.",
                mode=("string", "full or visible."),
            ),
            {"element": "Submit button", "ref": "e30"},
        ),
        S(
            "api",
            "Use the {p} API to create a record named 'Q3 report' for the finance team.",
            tool(
                "api_request",
                "Send a request to the API.",
                method=("string", "HTTP method."),
                path=("string", "Path under the API's base URL."),
                body=("object", "JSON body."),
            ),
            tool("api_docs", "Search the API reference.", query=_LOOKUP_Q),
            {
                "method": "POST",
                "path": "/v1/records",
                "body": {"name": "Q3 report", "team": "finance"},
            },
        ),
    )
}

# Words in a provider's name, in order: the first domain whose word appears wins.
_DOMAIN_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("files", ("filesystem",)),
    ("fetch", ("mcp server: fetch",)),
    ("browser", ("playwright", "puppeteer", "browser")),
    ("code", ("github", "gitlab", "bitbucket", "azure devops", "jira")),
    ("rpc", ("json-rpc 2.0",)),
    (
        "chain",
        (
            "ethereum",
            "geth",
            "starknet",
            "quicknode",
            "substrate",
            "polkadot",
            "cometbft",
            "tendermint",
            "ankr",
            "solana",
            "infura",
            "alchemy",
            "bitcoin",
            "rpc",
        ),
    ),
    (
        "llm",
        (
            "openai",
            "anthropic",
            "gemini",
            "openrouter",
            "dashscope",
            "cerebras",
            "watsonx",
            "nim",
            "jina",
            "assemblyai",
            "perplexity",
            "mistral",
            "cohere",
            "groq",
            "together",
            "deepseek",
            "hugging",
            "replicate",
            "fireworks",
            "bedrock",
            "vertex",
            "claude",
            "ollama",
            "xai",
            "model",
        ),
    ),
    ("kms", ("kms",)),
    ("secrets", ("key vault", "secrets manager", "vault", "secret")),
    ("identity", ("firebase auth", "sts", "auth0", "okta", "cognito", "identity")),
    ("packages", ("npm", "pypi", "crates.io", "maven", "rubygems", "registry")),
    ("newsletter", ("mailchimp", "marketing cloud", "klaviyo", "convertkit")),
    ("email", ("resend", "brevo", "ses", "sendgrid", "mailgun", "postmark", "email", "mail")),
    (
        "sms",
        (
            "twilio",
            "whatsapp",
            "messagebird",
            "bird",
            "bandwidth",
            "plivo",
            "sinch",
            "vonage",
            "nexmo",
            "telnyx",
            "sms",
        ),
    ),
    ("chat", ("slack", "discord", "teams", "telegram", "mattermost")),
    ("accounting", ("xero", "quickbooks", "freshbooks", "sage")),
    (
        "payments",
        (
            "stripe",
            "braintree",
            "paypal",
            "authorize.net",
            "chargebee",
            "recurly",
            "klarna",
            "lemon squeezy",
            "razorpay",
            "adyen",
            "square",
            "paddle",
            "mollie",
            "checkout",
            "payment",
        ),
    ),
    ("commerce", ("shopify", "woocommerce", "bigcommerce", "commerce")),
    (
        "storage",
        ("s3", "blob", "cloud storage", "dropbox", "cloudinary", "box", "drive", "storage", "r2"),
    ),
    (
        "query",
        (
            "bigquery",
            "opensearch",
            "elasticsearch",
            "snowflake",
            "clickhouse",
            "athena",
            "redshift",
            "sql",
        ),
    ),
    (
        "database",
        (
            "dynamodb",
            "cosmos",
            "astra",
            "couchdb",
            "mongodb",
            "firestore",
            "algolia",
            "weaviate",
            "milvus",
            "zilliz",
            "pinecone",
            "qdrant",
            "redis",
            "supabase",
            "neon",
            "planetscale",
            "db",
        ),
    ),
    ("events", ("pub/sub", "sns", "sqs", "service bus", "eventbridge", "kafka", "queue")),
    ("function", ("lambda", "step functions", "api gateway", "functions", "workflow")),
    ("metrics", ("cloudwatch", "grafana", "new relic", "datadog", "prometheus", "monitor")),
    ("alerts", ("opsgenie", "pagerduty", "incident")),
    ("analytics", ("amplitude", "mixpanel", "segment", "posthog", "analytics")),
    (
        "tickets",
        ("freshdesk", "servicenow", "zendesk", "clickup", "monday", "asana", "trello", "linear"),
    ),
    ("pages", ("notion", "webflow", "wordpress", "miro", "confluence", "contentful", "cms")),
    ("crm", ("hubspot", "pipedrive", "salesforce", "calendly", "zoho", "crm")),
    ("social", ("linkedin", "meta graph", "facebook", "instagram", "twitter", "x api")),
    ("email", ("microsoft graph",)),
    (
        "deploy",
        (
            "kubernetes",
            "resource manager",
            "ec2",
            "linode",
            "render",
            "netlify",
            "cloudflare",
            "google cloud",
            "databricks",
            "vercel",
            "heroku",
            "digitalocean",
            "fly.io",
            "cloud",
            "travis",
            "circleci",
        ),
    ),
)


def domain_of(provider: str) -> str:
    """The domain whose scenario fits a provider's failures (``api`` when no word matches)."""
    name = provider.lower()
    for domain, words in _DOMAIN_WORDS:
        for word in words:
            # Short words only as whole words ("ses" is not in "processes").
            if (
                word in name
                if len(word) > 4
                else word in name.replace("(", " ").replace(")", " ").replace("/", " ").split()
            ):
                return domain
    return "api"


@dataclass(frozen=True)
class Fit:
    """A corpus case's own fit: the call it failed on, and what a right fix changes.

    ``arg`` and ``bad`` name the argument the failure is about and its value in the call;
    ``lookup`` says a look-up is a right fix too (the value does not exist). ``domain`` and
    ``tool`` replace the provider's scenario when its tool cannot carry the failing value.
    """

    call: dict[str, Any]
    arg: str | None = None
    lookup: bool = False
    domain: str | None = None
    tool: dict[str, Any] | None = None
    task: str | None = None


# In-sample self-correctable corpus cases: the call each failure answers. Only the arguments
# that differ from the domain's call are given; the value is the one the body names.
FITS: dict[str, Fit] = {
    "c-astra-200-document-exists": Fit({}, "item"),
    "c-databricks-400-invalid-parameter": Fit(
        {
            "cluster_name": "nightly-etl",
            "spark_version": "",
            "node_type": "m5.xlarge",
            "num_workers": 4,
        },
        "spark_version",
        domain="deploy",
        tool=tool(
            "create_cluster",
            "Create a compute cluster.",
            cluster_name=("string", "Name."),
            spark_version=("string", "Runtime version, like 15.4.x-scala2.12."),
            node_type=("string", "Instance type."),
            num_workers=("integer", "Worker count."),
        ),
        task="Create a 4-worker cluster named nightly-etl on {p} for the nightly ETL job.",
    ),
    "c-geth-200-nonce-too-low": Fit({"nonce": 3}, "nonce", lookup=True),
    "d-newrelic-200-timeseries-step": Fit(
        {"query": "SELECT percentile(duration, 95) FROM Transaction TIMESERIES 2 hours"}, "query"
    ),
    "d-resend-400-validation-error": Fit({"to": "dana at example.com"}, "to"),
    "c-linode-400-field-error": Fit({}, "name", lookup=True),
    "c-nim-404-model": Fit({"model": "meta/llama3-8b"}, "model", lookup=True),
    "d-newrelic-200-nrql-syntax-error": Fit(
        {"query": "SELECT FROM Transaction percentile(duration, 95)"}, "query"
    ),
    "c-geth-200-replacement-underpriced": Fit({"gas_price_gwei": 30}, "gas_price_gwei"),
    "c-cosmos-412-precondition": Fit({}),
    "d-mcp-filesystem-enoent": Fit({"path": "/home/user/project/missing.txt"}, "path", lookup=True),
    "c-cerebras-400-bad-request": Fit({"max_tokens": 128000}, "max_tokens"),
    "k8s-410-expired-resource-version": Fit({}),
    "aws-dynamodb-400-validation": Fit(
        {"item": {"product_id": "p-1", "name": "Desk lamp", "price": 39}}, "item", lookup=True
    ),
    "c-keyvault-404-secret-not-found": Fit(
        {"name": "DatabaseRotatingPassword"}, "name", lookup=True
    ),
    "d-opsgenie-404-alert-missing": Fit({}, "alert_id", lookup=True),
    "c-gcs-xml-404-nosuchkey": Fit({}, "key", lookup=True),
    "gemini-404-not-found": Fit({"model": "gemini-1.5-pro-latest"}, "model", lookup=True),
    "discord-400-50035-invalid-form-body": Fit({}),
    "c-gcs-404-not-found": Fit({}, "key", lookup=True),
    "d-klarna-400-bad-value": Fit({"currency": "EURO"}, "currency"),
    "c-gcs-xml-409-bucket-exists": Fit(
        {"name": "my-bucket", "location": "EU"},
        "name",
        domain="storage",
        tool=tool(
            "create_bucket",
            "Create a bucket.",
            name=("string", "Bucket name."),
            location=("string", "Location."),
        ),
        task="Create a bucket named my-bucket in the EU for the reports.",
    ),
    "c-algolia-400-record-too-big": Fit(
        {
            "table": "products",
            "item": {
                "objectID": "42",
                "name": "Desk lamp",
                "manual": "Assembly guide, 18,000 characters ...",
            },
        },
        "item",
    ),
    "aws-dynamodb-400-conditional-check-failed": Fit({}),
    "d-webflow-400-validation-error": Fit({"slug": "my-item"}, "slug"),
    "d-messagebird-422-code10-invalid-params": Fit({"sender": "AcmeDinerDowntown"}, "sender"),
    "d-mcp-filesystem-edit-no-match": Fit(
        {
            "path": "/home/user/project/src/answer.js",
            "old_text": "const answer = 41;",
            "new_text": "const answer = 42;",
        },
        "old_text",
        lookup=True,
        domain="files",
        tool=tool(
            "edit_file",
            "Replace an exact piece of text in a file.",
            path=("string", "File path."),
            old_text=("string", "Text to replace, exactly as in the file."),
            new_text=("string", "Replacement."),
        ),
        task="In src/answer.js, change the answer constant from 41 to 42.",
    ),
    "c-netlify-404-not-found": Fit({}, "name", lookup=True),
    "c-kms-400-not-found": Fit(
        {"key_id": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
        "key_id",
        lookup=True,
    ),
    "c-cloudwatch-400-missing-parameter": Fit(
        {"namespace": "", "metric_name": "Latency", "statistic": "p95", "period": 3600},
        "namespace",
        domain="metrics",
        tool=tool(
            "get_metric_statistics",
            "Read a metric's statistics.",
            namespace=("string", "Metric namespace, like AWS/ApiGateway."),
            metric_name=("string", "Metric name."),
            statistic=("string", "Statistic."),
            period=("integer", "Seconds."),
        ),
    ),
    "stripe-402-expired-card": Fit({}),
    "k8s-409-already-exists": Fit({}, "name", lookup=True),
    "c-pubsub-404-topic-not-found": Fit({"topic": "my-topic"}, "topic", lookup=True),
    "d-mailchimp-400-invalid-resource": Fit({"first_name": ""}, "first_name"),
    "d-plivo-400-missing-param": Fit({"to": ""}, "to"),
    "cloudflare-400-7003-could-not-route": Fit(
        {
            "zone_id": "b5b82f8d72414f849bd96a50e6228ece",
            "record_id": "645577699",
            "content": "203.0.113.7",
        },
        "record_id",
        lookup=True,
        domain="deploy",
        tool=tool(
            "update_dns_record",
            "Change a DNS record.",
            zone_id=("string", "Zone id."),
            record_id=("string", "DNS record id."),
            content=("string", "New value."),
        ),
        task="Point the www record of our zone to 203.0.113.7.",
    ),
    "c-cosmos-404-not-found": Fit({}, "item", lookup=True),
    "d-mcp-playwright-stale-ref": Fit({}, "ref", lookup=True),
    "c-kms-400-invalid-state-pending-deletion": Fit(
        {"key_id": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
        "key_id",
        lookup=True,
    ),
    "d-grafana-404-dashboard-not-found": Fit(
        {"uid": "api-latency"},
        "uid",
        lookup=True,
        domain="metrics",
        tool=tool(
            "get_dashboard",
            "Read a dashboard's panels and their current values.",
            uid=("string", "Dashboard uid."),
        ),
    ),
    "d-xero-400-validation-exception": Fit({"contact_email": "abc@"}, "contact_email"),
    "c-watsonx-404-model-not-supported": Fit(
        {"model": "ibm/granite-13b-chat-v1"}, "model", lookup=True
    ),
}


def scenario_for(case_id: str, provider: str) -> tuple[Scenario, Fit | None]:
    """The scenario a corpus case is asked in: its provider's domain, with its own fit."""
    fit = FITS.get(case_id)
    base = DOMAINS[fit.domain if fit and fit.domain else domain_of(provider)]
    if fit is not None:
        call = {**base.call, **fit.call} if fit.tool is None else dict(fit.call)
        base = replace(
            base,
            name=f"{base.name}:{case_id}",
            task=fit.task or base.task,
            tool=fit.tool or base.tool,
            call=call,
        )
    return base.for_provider(provider), fit
