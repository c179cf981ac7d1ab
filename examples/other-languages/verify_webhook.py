#!/usr/bin/env python3
"""Receives the Merchant Stablecoin sandbox's webhooks and verifies them, standard library only.

The sandbox signs each delivery with its own scheme (the specification names the `z-signature`
header but does not show the service's verification procedure; take the production one from the
service): `z-signature` is the lowercase hex HMAC-SHA256 of the raw request body, keyed with the
webhook secret. The sandbox command prints that secret as `MERCHANT_WEBHOOK_SECRET` when it
generated it, or takes yours from `--webhook-secret` or the same variable.

Run `python3 verify_webhook.py [port] [count]`, register `http://127.0.0.1:<port>/hooks` with
`POST /__sandbox/webhooks/receivers`, and emit an event. Prints `listening on <port>`, then one
line per delivery; answers 200 to a verified one and 401 otherwise (the sandbox then retries).
Exits after `count` deliveries (default 1; 0 runs until interrupted).
"""
import hashlib
import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["MERCHANT_WEBHOOK_SECRET"].encode()
PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 0
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 1
seen = set()


def verified(raw_body, signature):
    """The sandbox's scheme: hex HMAC-SHA256 of the raw bytes, compared in constant time."""
    expected = hmac.new(SECRET, raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature or "")


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        # Verify the bytes as received, before parsing: re-serialized JSON would not match.
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        event_id = self.headers.get("z-event-id", "")
        if not verified(raw, self.headers.get("z-signature")):
            print("refused:", event_id, "z-signature does not match", flush=True)
            self.send_response(401)
        else:
            event = json.loads(raw)
            # Deliveries are at-least-once: deduplicate on z-event-id.
            again = " (duplicate)" if event_id in seen else ""
            seen.add(event_id)
            print("verified:", event_id, event["event_type"], event["data"]["status"] + again, flush=True)
            self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()
        self.server.handled += 1

    def log_message(self, *args):
        pass  # one line per delivery, printed above


server = HTTPServer(("127.0.0.1", PORT), Receiver)
server.handled = 0
print("listening on", server.server_address[1], flush=True)
while COUNT == 0 or server.handled < COUNT:
    server.handle_request()
