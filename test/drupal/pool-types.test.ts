import type mysqlCallback from "mysql2";
import type mysql from "mysql2/promise";
import type pg from "pg";
import { describe, expectTypeOf, it } from "vitest";
import type { Drupal7Pool } from "../../src/drupal/index.js";

// The kit never imports the drivers; these checks (run by `tsc --noEmit`) keep its
// structural pool types in step with the drivers' own typings.
describe("Drupal7Pool", () => {
  it("accepts the pools apps create with mysql2 and pg", () => {
    expectTypeOf<ReturnType<typeof mysql.createPool>>().toExtend<Drupal7Pool>();
    expectTypeOf<ReturnType<typeof mysqlCallback.createPool>>().toExtend<Drupal7Pool>();
    expectTypeOf<pg.Pool>().toExtend<Drupal7Pool>();
    expectTypeOf<string>().not.toExtend<Drupal7Pool>();
  });
});
