// A process-per-call gate, as Claude Code style hook scripts do: read the call as JSON on stdin,
// decide, print the decision as JSON, exit. Deliberately tiny: what it costs is the process.
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const call = JSON.parse(input);
  const deny = new Set(["exec", "process", "gateway"]);
  const blocked = call.tainted === true && deny.has(call.tool_name);
  process.stdout.write(JSON.stringify(blocked ? { decision: "block", reason: `${call.tool_name} after untrusted input` } : { decision: "approve" }));
});
