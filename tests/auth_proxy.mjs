// A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request, for
// clients that cannot send headers of their own (the MCP conformance suite). Everything else
// passes through unchanged, the Host header included, and answers stream back as they come
// (server-sent events too).
//
//   node tests/auth_proxy.mjs <upstream port> <token>
//   -> prints {"port": <its own port>} once listening; stops on SIGTERM.
import http from "node:http";
import process from "node:process";

const [upstreamPort, token] = process.argv.slice(2);
if (!upstreamPort || !token) {
	console.error("usage: node tests/auth_proxy.mjs <upstream port> <token>");
	process.exit(2);
}

const server = http.createServer((request, response) => {
	const upstream = http.request(
		{
			host: "127.0.0.1",
			port: Number(upstreamPort),
			method: request.method,
			path: request.url,
			headers: { ...request.headers, authorization: `Bearer ${token}` },
		},
		(answer) => {
			response.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(response);
		},
	);
	upstream.on("error", (error) => {
		if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
		response.end(`auth proxy: ${error.message}`);
	});
	request.pipe(upstream);
	// A client that goes away ends the upstream request too (an SSE stream would stay open).
	response.on("close", () => upstream.destroy());
});
server.listen(0, "127.0.0.1", () => {
	process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
