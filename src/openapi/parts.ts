import { z } from "zod";
import type { OpenApiObject } from "./types.js";

/**
 * The small pieces every part of the document is written with.
 *
 * @module
 */

/** A reference to one of the document's `components.schemas`. */
export const ref = (name: string): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });
/** A JSON body of this schema, as a response's or a request's `content`. */
export const json = (schema: OpenApiObject): OpenApiObject => ({ "application/json": { schema } });
/** A response header that holds a string. */
export const stringHeader = (description: string): OpenApiObject => ({ description, schema: { type: "string" } });

/** A zod schema as the JSON Schema of what a client sends or reads. */
export function jsonSchema(schema: z.core.$ZodType): OpenApiObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
  return rest as OpenApiObject;
}
