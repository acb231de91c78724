/**
 * A value a schema refused, said in words a person reads without knowing the validator
 * ("prompt is empty: give at least one character.", not "must NOT have fewer than 1
 * characters"): the HTTP API's refusals (main/api/validation-errors.ts, from ajv's errors)
 * and the MCP tools' (main/mcp/tools.ts, from TypeBox's) say the same.
 */

/**
 * The words of a refusal by JSON Schema keyword, with ajv's parameters (`limit`, `type`,
 * `allowedValues`…); `given` is what the request had there, if anything.
 */
export function refusalWords(field: string, keyword: string, params: Record<string, unknown>, given: unknown, validatorWords: string | undefined): string {
  const limit = params.limit as number;
  const not = given === undefined ? '' : `, not ${shown(given)}`;
  switch (keyword) {
    case 'required':
      return `${field} is required.`;
    case 'additionalProperties':
      return `${field} is not a field of this request.`;
    case 'enum': {
      // null in a nullable enum is "leave it to the service", not one of the choices.
      const allowed = params.allowedValues as unknown[];
      const choices = allowed.filter((x) => x !== null).map((x) => JSON.stringify(x)).join(', ');
      const hint = typeof given === 'string' ? closeChoice(given, allowed) : undefined;
      return `${field} must be one of: ${choices}${allowed.includes(null) ? ' (or null for any)' : ''}.${hint ? ` Did you mean ${JSON.stringify(hint)}?` : ''}`;
    }
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}${not}.`;
    case 'type':
      return `${field} must be ${typeWords(params.type)}${not}.`;
    case 'minLength':
      return limit === 1 ? `${field} is empty: give at least one character.` : `${field} is too short: at least ${limit} characters.`;
    case 'maxLength':
      return `${field} is too long: at most ${limit} characters.`;
    case 'minimum':
      return `${field} must be ${limit} or more${not}.`;
    case 'exclusiveMinimum':
      return `${field} must be more than ${limit}${not}.`;
    case 'maximum':
      return `${field} must be ${limit} or less${not}.`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${limit}${not}.`;
    case 'minItems':
      return limit === 1 ? `${field} is empty: give at least one item.` : `${field} has too few items: at least ${limit}.`;
    case 'maxItems':
      return `${field} has too many items: at most ${limit}.`;
    case 'uniqueItems':
      return `${field} names the same value twice (items ${String(params.j)} and ${String(params.i)}).`;
    case 'pattern':
      return `${field} is not in the form it takes (${String(params.pattern)})${not}.`;
    case 'format':
      return `${field} must be ${FORMAT_WORDS[String(params.format)] ?? `a valid ${String(params.format)}`}${not}.`;
    case 'anyOf':
    case 'oneOf':
      return `${field} is none of the forms it may take${not}.`;
    default:
      // A keyword no schema here uses yet: the validator's own words, rather than none.
      return `${field} is not valid: it ${validatorWords ?? 'fails a rule of the schema'}.`;
  }
}

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time such as 2026-11-21T10:00:00Z',
  uri: 'an absolute URL',
  email: 'an email address',
};

/** "a whole number", "text", "true or false"…, for a JSON type or a list of them. */
function typeWords(type: unknown): string {
  const words: Record<string, string> = {
    integer: 'a whole number',
    number: 'a number',
    string: 'text (a string)',
    boolean: 'true or false',
    object: 'an object',
    array: 'a list (an array)',
    null: 'null',
  };
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => words[t] ?? t).join(' or ');
}

/** What the body had, briefly: a value as JSON (cut short), a list or an object by kind. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  const json = JSON.stringify(value);
  return json.length > 40 ? `${json.slice(0, 37)}…` : json;
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The allowed value a mistaken one most likely meant: "claude" or "claude-3-opus" for
 * "service/claude" (a newcomer to the OpenAI route names a model, ChatBridge's models are
 * its providers), "chatgp" for "chatgpt".
 */
function closeChoice(given: string, allowed: unknown[]): string | undefined {
  const g = given.toLowerCase();
  const choices = allowed.filter((x): x is string => typeof x === 'string');
  const tail = (c: string) => c.slice(c.lastIndexOf('/') + 1).toLowerCase();
  return (
    choices.find((c) => tail(c) === g.slice(g.lastIndexOf('/') + 1)) ??
    choices.find((c) => tail(c).length > 3 && g.startsWith(tail(c))) ??
    choices.find((c) => editDistance(tail(c), g) <= 2)
  );
}
