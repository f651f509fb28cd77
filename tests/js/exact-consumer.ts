// The exact package's declarations: the same API, and the exact counter names type-check.
import { Registry, countTokens, type Budget, type CounterName } from "tool-intent-exact";

const counter: CounterName = "o200k";
const budget: Budget = Registry.embedded().turn({ web_search: true }).budget({ counter });
const tokens: number = countTokens("hello", "cl100k_base") + budget.residentTokens;
// @ts-expect-error a misspelt counter name is still refused
countTokens("hello", "o200");
export { tokens };
