import { ApiError } from "@chorus/contracts";
import { decodeCursor, encodeCursor } from "./request-listing.js";

describe("list cursors", () => {
  it("when a place is encoded, then decoding gives it back", () => {
    const place = { acceptedAt: 1764000000123, id: "6f1c2b9e-4a3d-4e0f-9a51-0c2d3e4f5a6b" };
    expect(decodeCursor(encodeCursor(place))).toEqual(place);
    expect(encodeCursor(place)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ["not base64 of a place", "not-a-cursor"],
    ["a place with a bad id", Buffer.from("1764000000123:not an id").toString("base64url")],
    ["a place without a time", Buffer.from(":abc").toString("base64url")],
    ["a padded variant of a real cursor", `${encodeCursor({ acceptedAt: 1, id: "a" })}=`],
  ])("when the cursor is %s, then it is 400 INVALID_PARAMETER naming cursor", (_case, cursor) => {
    let thrown: unknown;
    try {
      decodeCursor(cursor);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("INVALID_PARAMETER");
    expect((thrown as ApiError).details?.parameter).toBe("cursor");
  });
});
