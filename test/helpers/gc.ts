import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** V8's garbage collector, for a before-and-after look at what is retained. */
export function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
