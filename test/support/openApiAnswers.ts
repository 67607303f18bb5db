import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface Response {
  description: string;
  content?: Record<string, { schema: unknown }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, Response> }>>;
  components?: unknown;
}

export interface LiveAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Holds live answers to an OpenAPI document: the status must be one the operation lists (its
 * `default` only for a 5xx), the content type one documented for it, and a JSON body must validate
 * against that answer's schema. It remembers which operations answered, so a test can insist on
 * every operation of the document.
 */
export function openApiAnswers(document: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  const answered = new Map<string, Set<number>>();

  function validatorFor(key: string, schema: unknown): ValidateFunction {
    let validate = validators.get(key);
    if (!validate) {
      // The document's components travel with the schema, so its `#/components/…` pointers resolve.
      validate = ajv.compile({ allOf: [schema], components: document.components });
      validators.set(key, validate);
    }
    return validate;
  }

  return {
    /** What is wrong with this answer to `method` on the documented `path`; nothing when it is as documented. */
    problems(method: string, path: string, answer: LiveAnswer): string[] {
      const name = `${method.toUpperCase()} ${path} → ${answer.status}`;
      const operation = document.paths[path]?.[method.toLowerCase()];
      if (!operation) return [`${name}: no such operation in the document`];
      const statuses = answered.get(`${method.toUpperCase()} ${path}`) ?? new Set<number>();
      answered.set(`${method.toUpperCase()} ${path}`, statuses.add(answer.status));
      const key = String(answer.status) in operation.responses ? String(answer.status) : answer.status >= 500 ? 'default' : undefined;
      const response = key === undefined ? undefined : operation.responses[key];
      if (!response || key === undefined) return [`${name}: status not documented (${Object.keys(operation.responses).join(', ')}); body ${answer.body.slice(0, 200)}`];
      if (!response.content) return answer.body === '' ? [] : [`${name}: documented without a body, answered ${answer.contentType}`];
      const mediaType = answer.contentType.split(';')[0]!.trim();
      const documented = response.content[mediaType];
      if (!documented) return [`${name}: content type ${mediaType} not documented (${Object.keys(response.content).join(', ')})`];
      if (mediaType !== 'application/json') return [];
      const validate = validatorFor(`${method} ${path} ${key} ${mediaType}`, documented.schema);
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        return [`${name}: not JSON: ${answer.body.slice(0, 200)}`];
      }
      if (validate(body)) return [];
      return [`${name}: ${ajv.errorsText(validate.errors)}; body ${answer.body.slice(0, 300)}`];
    },
    /** `METHOD path` of the documented operations that no answer was held against. */
    unanswered(): string[] {
      return Object.entries(document.paths)
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
        .filter((operation) => !answered.has(operation));
    },
    /** The statuses each operation answered with, by `METHOD path`. */
    statuses(): Map<string, Set<number>> {
      return answered;
    },
  };
}
