// npm's global root without running npm (what `clawos patch-host` searches for a global OpenClaw).
import { describe, expect, it } from "vitest";
import { npmGlobalPrefix, npmGlobalRoot, npmrcPrefix } from "../../src/host/npm-global-root.ts";

// npmrc files write `${VAR}` literally: the strings below are npmrc text, not templates.
const files = (table: Record<string, string>) => (path: string) => table[path];
const base = { platform: "linux" as const, execPath: "/opt/node/bin/node", home: "/home/o" };

describe("npm global root", () => {
  it("defaults to the prefix next to the Node binary", () => {
    expect(npmGlobalRoot({ ...base, env: {}, readFile: files({}) })).toBe("/opt/node/lib/node_modules");
    expect(npmGlobalRoot({ ...base, platform: "win32", execPath: "C:\\node\\node.exe", env: {}, readFile: files({}) })).toBe("C:\\node\\node_modules");
    expect(npmGlobalPrefix({ ...base, env: { PREFIX: "/usr/local" }, readFile: files({}) })).toBe("/usr/local");
    expect(npmGlobalPrefix({ ...base, env: { DESTDIR: "/stage" }, readFile: files({}) })).toBe("/stage/opt/node");
  });

  it("takes the prefix from the environment first, then the user's npmrc, then the global npmrc", () => {
    const rc = files({ "/home/o/.npmrc": "registry=x\nprefix = ~/.npm-global\n", "/opt/node/etc/npmrc": "prefix=/global" });
    expect(npmGlobalRoot({ ...base, env: { npm_config_prefix: "/from/env" }, readFile: rc })).toBe("/from/env/lib/node_modules");
    expect(npmGlobalRoot({ ...base, env: { NPM_CONFIG_PREFIX: "/upper" }, readFile: rc })).toBe("/upper/lib/node_modules");
    expect(npmGlobalRoot({ ...base, env: { npm_config_global_prefix: "/from/npm" }, readFile: rc })).toBe("/from/npm/lib/node_modules");
    expect(npmGlobalRoot({ ...base, env: {}, readFile: rc })).toBe("/home/o/.npm-global/lib/node_modules");
    expect(npmGlobalRoot({ ...base, env: {}, readFile: files({ "/opt/node/etc/npmrc": "prefix=/global" }) })).toBe("/global/lib/node_modules");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: npmrc text
    expect(npmGlobalRoot({ ...base, env: { npm_config_userconfig: "/etc/other-rc" }, readFile: files({ "/etc/other-rc": "prefix=${P}/x" }) })).toBe(
      "/x/lib/node_modules",
    );
  });

  it("reads prefix lines as npm does: the last wins, quotes and environment variables expanded", () => {
    expect(npmrcPrefix('prefix="/a b"\n', {}, "/h")).toBe("/a b");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: npmrc text
    expect(npmrcPrefix("prefix=/one\nprefix=${HOME}/two\n", { HOME: "/h" }, "/h")).toBe("/h/two");
    expect(npmrcPrefix("; prefix=/commented\nfoo=bar", {}, "/h")).toBeUndefined();
    expect(npmrcPrefix(undefined, {}, "/h")).toBeUndefined();
  });
});
