// The hybrid package's declarations: the same API, and `ranker: "hybrid"` type-checks.
import { Registry, type RankerName, type SearchOutcome } from "tool-intent-hybrid";

const ranker: RankerName = "hybrid";
const found: SearchOutcome = Registry.embedded().turn(null).search("how many euros is 20 dollars", { ranker, limit: 3 });
// @ts-expect-error a misspelt ranker name is still refused
Registry.embedded().turn(null).search("x", { ranker: "semantic" });
export const hits: string[] = found.hits;
