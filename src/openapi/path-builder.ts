import type { DocumentedSettings } from "../options/schema.js";
import type { OpenApiObject } from "./types.js";

/** What each path's builder reads: where the endpoint is served, and the settings that shape the wire. */
export interface PathContext {
  /** The endpoint's path as clients see it, e.g. `/services/json`. */
  readonly base: string;
  readonly settings: DocumentedSettings;
  /** A request body of this schema in each type the endpoint parses, as a `requestBody`'s `content`. */
  readonly bodyTypes: (schema: OpenApiObject) => OpenApiObject;
}

/** Paths of the document, each with its operations by method. */
export type Paths = Record<string, OpenApiObject>;

/** Builds the operations of one path (or of none, where the set-up does not serve it). */
export type PathBuilder = (context: PathContext) => Paths;
