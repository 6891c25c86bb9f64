import { describe, expect, it } from "vitest";
import { isTrustLevel, meetsTrust, minTrust, TRUST_LEVELS, TRUST_ORDER_TEXT, trustRank } from "../../src/taint/trust.ts";

describe("trust order", () => {
  it("is owner > verified > community > untrusted", () => {
    expect(TRUST_ORDER_TEXT).toBe("owner > verified > community > untrusted");
    expect(trustRank("owner")).toBeGreaterThan(trustRank("verified"));
    expect(trustRank("verified")).toBeGreaterThan(trustRank("community"));
    expect(trustRank("community")).toBeGreaterThan(trustRank("untrusted"));
  });

  it("minTrust is the lower level, whatever the argument order", () => {
    for (const a of TRUST_LEVELS) {
      for (const b of TRUST_LEVELS) {
        const m = minTrust(a, b);
        expect(m).toBe(minTrust(b, a));
        expect(trustRank(m)).toBe(Math.min(trustRank(a), trustRank(b)));
      }
    }
  });

  it("meetsTrust compares against a requirement", () => {
    expect(meetsTrust("owner", "owner")).toBe(true);
    expect(meetsTrust("verified", "owner")).toBe(false);
    expect(meetsTrust("community", "untrusted")).toBe(true);
  });

  it("recognises only the four levels", () => {
    expect(TRUST_LEVELS.every(isTrustLevel)).toBe(true);
    for (const bad of ["Owner", "admin", "", null, 3, "owner "]) expect(isTrustLevel(bad)).toBe(false);
  });
});
