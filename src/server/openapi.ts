/**
 * The machine-readable description of the HTTP interface (OpenAPI 3.1), served at
 * `GET /openapi.json`. Schema names follow SPEC.md (SystemOneRequest, SystemOneResponse,
 * ModelMetadataList, ModelMetadata, HTTPValidationError, ValidationError, Usage) and the
 * question and answer variants; the error body of statuses other than 422, which SPEC.md
 * leaves open, is `ErrorResponse`.
 * @module
 */
import { MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS } from '../limits.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** string | object | array, optionally null: the type of instructions, criteria and state. */
const content = (nullable: boolean): Json => ({
  anyOf: [
    { type: 'string' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
    ...(nullable ? [{ type: 'null' }] : []),
  ],
});

const instructions: Json = {
  ...(content(true) as Record<string, Json>),
  title: 'Instructions',
  description:
    'What the model should decide, rate or answer yes/no about: a question, a statement, or a structured object whose text refers to its data fields by name in backticks. Optional in the schema; always send it.',
};

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: ref('ErrorResponse') } },
});

const retryHeaders: Json = {
  'retry-after': { description: 'Seconds to wait before retrying (at least 1).', schema: { type: 'integer' } },
  'retry-after-ms': { description: 'Milliseconds to wait before retrying; preferred over retry-after.', schema: { type: 'integer' } },
};

const requestIdHeader: Json = {
  'x-service-request-id': {
    description: 'Request id, `req_` followed by 32 hex digits. Also sent as x-typesafe-request-id by default.',
    schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
  },
};

/** Statuses every authenticated endpoint may answer besides 200 and 422. */
function commonErrors(evaluation: boolean): Record<string, Json> {
  const out: Record<string, Json> = {
    '401': errorResponse('Missing or invalid API key (`code`: missing_api_key, malformed_authorization or invalid_api_key).'),
    '404': errorResponse('Wrong path or method.'),
    '500': errorResponse('The server failed to process the request; the body carries the request id.'),
    '503': errorResponse('The server is shutting down.'),
  };
  if (evaluation) {
    Object.assign(out, {
      '400': errorResponse('Malformed JSON, invalid UTF-8, a body that is not a JSON object, or an unknown model (`code`: unknown_model, naming it).'),
      '403': errorResponse('The API key may not use the requested model.'),
      '408': errorResponse('The request body was not received in time.'),
      '413': errorResponse('The request body exceeds the configured byte limit.'),
      '415': errorResponse('A Content-Type other than application/json, or a Content-Encoding.'),
      '429': { ...(errorResponse('A per-key rate limit was exceeded (`limit`: requests_per_minute, input_tokens_per_second or work_units_per_second).') as Record<string, Json>), headers: retryHeaders },
      '504': errorResponse('The evaluation passed the compute deadline and was stopped (`code`: compute_deadline, `limit_ms`).'),
      '529': { ...(errorResponse('The server is overloaded: more work queued than its bound.') as Record<string, Json>), headers: retryHeaders },
    });
  }
  return out;
}

/** Builds the OpenAPI 3.1 document. */
export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'evalmodel question-evaluation service',
      version: '0.2.0',
      description:
        'Evaluates one piece of content (the state) against typed questions (noul, choice, score) and returns one typed answer per question plus token usage.',
    },
    paths: {
      '/v1/systemone': {
        post: {
          operationId: 'systemone_v1_systemone_post',
          summary: 'Systemone',
          security: [{ HTTPBearer: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('SystemOneRequest') } } },
          responses: {
            '200': {
              description: 'Successful Response',
              headers: requestIdHeader,
              content: { 'application/json': { schema: ref('SystemOneResponse') } },
            },
            '422': { description: 'Validation Error', content: { 'application/json': { schema: ref('HTTPValidationError') } } },
            ...commonErrors(true),
          },
        },
      },
      '/v1/models': {
        get: {
          operationId: 'models_v1_v1_models_get',
          summary: 'Models V1',
          security: [{ HTTPBearer: [] }],
          responses: {
            '200': {
              description: 'Successful Response',
              headers: requestIdHeader,
              content: { 'application/json': { schema: ref('ModelMetadataList') } },
            },
            '422': { description: 'Validation Error', content: { 'application/json': { schema: ref('HTTPValidationError') } } },
            ...commonErrors(false),
          },
        },
      },
    },
    components: {
      securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        SystemOneRequest: {
          title: 'SystemOneRequest',
          type: 'object',
          required: ['state', 'model', 'questions'],
          properties: {
            state: { ...(content(false) as Record<string, Json>), title: 'State', description: 'The content all questions refer to.' },
            model: {
              type: 'string',
              title: 'Model',
              description: 'A model alias (evalmodel-latest, evalmodel-preview) or a versioned id evalmodel-<major>.<minor>.<patch>.',
            },
            questions: {
              type: 'object',
              title: 'Questions',
              minProperties: 1,
              additionalProperties: {
                oneOf: [ref('NoulQuestion'), ref('ChoiceQuestion'), ref('ScoreQuestion')],
                discriminator: {
                  propertyName: 'type',
                  mapping: {
                    noul: '#/components/schemas/NoulQuestion',
                    choice: '#/components/schemas/ChoiceQuestion',
                    score: '#/components/schemas/ScoreQuestion',
                  },
                },
              },
              description: 'Map from caller-chosen question id to question. The id is returned as the answer key and is not sent to the model.',
            },
          },
        },
        NoulCriteria: {
          title: 'NoulCriteria',
          type: 'object',
          properties: {
            true: { ...(content(true) as Record<string, Json>), title: 'True', description: 'What counts as a yes (value near 1).' },
            false: { ...(content(true) as Record<string, Json>), title: 'False', description: 'What counts as a no (value near 0).' },
          },
        },
        NoulQuestion: {
          title: 'NoulQuestion',
          type: 'object',
          required: ['type'],
          properties: {
            type: { const: 'noul', title: 'Type' },
            instructions,
            criteria: { anyOf: [ref('NoulCriteria'), { type: 'null' }], title: 'Criteria' },
          },
        },
        ChoiceQuestion: {
          title: 'ChoiceQuestion',
          type: 'object',
          required: ['type', 'criteria'],
          properties: {
            type: { const: 'choice', title: 'Type' },
            instructions,
            criteria: {
              type: 'object',
              title: 'Criteria',
              additionalProperties: content(true),
              description: `Map from option name to description; null means the option is interpreted by its name alone. At most ${MAX_CHOICE_OPTIONS} options (enforced, 422).`,
            },
          },
        },
        ScoreQuestion: {
          title: 'ScoreQuestion',
          type: 'object',
          required: ['type', 'criteria'],
          properties: {
            type: { const: 'score', title: 'Type' },
            instructions,
            criteria: {
              type: 'array',
              title: 'Criteria',
              minItems: 1,
              items: content(false),
              description: `Ordered level descriptions; an item's zero-based position is its level. At least 2 advised, at most ${MAX_SCORE_LEVELS} (enforced, 422).`,
            },
          },
        },
        SystemOneResponse: {
          title: 'SystemOneResponse',
          type: 'object',
          required: ['model', 'answers', 'usage'],
          properties: {
            model: { type: 'string', title: 'Model', description: 'The versioned model id that answered.' },
            answers: {
              type: 'object',
              title: 'Answers',
              minProperties: 1,
              additionalProperties: {
                oneOf: [ref('NoulAnswer'), ref('ChoiceAnswer'), ref('ScoreAnswer')],
                discriminator: {
                  propertyName: 'type',
                  mapping: {
                    noul: '#/components/schemas/NoulAnswer',
                    choice: '#/components/schemas/ChoiceAnswer',
                    score: '#/components/schemas/ScoreAnswer',
                  },
                },
              },
            },
            usage: ref('Usage'),
          },
        },
        NoulAnswer: {
          title: 'NoulAnswer',
          type: 'object',
          required: ['type', 'noul'],
          properties: {
            type: { const: 'noul', title: 'Type' },
            noul: { type: 'number', minimum: 0, maximum: 1, title: 'Noul', description: 'Probability of yes.' },
          },
        },
        ChoiceAnswer: {
          title: 'ChoiceAnswer',
          type: 'object',
          required: ['type', 'choice', 'probabilities', 'confidence'],
          properties: {
            type: { const: 'choice', title: 'Type' },
            choice: { type: 'string', title: 'Choice', description: 'The option with the highest probability.' },
            probabilities: { type: 'object', title: 'Probabilities', additionalProperties: { type: 'number', minimum: 0, maximum: 1 } },
            confidence: { type: 'number', minimum: 0, maximum: 1, title: 'Confidence' },
          },
        },
        ScoreAnswer: {
          title: 'ScoreAnswer',
          type: 'object',
          required: ['type', 'score', 'legend', 'probabilities', 'confidence'],
          properties: {
            type: { const: 'score', title: 'Type' },
            score: { type: 'number', title: 'Score', description: 'Sum over levels of level times probability.' },
            legend: { type: 'object', title: 'Legend', additionalProperties: content(false), propertyNames: { pattern: '^(0|[1-9][0-9]*)$' } },
            probabilities: {
              type: 'object',
              title: 'Probabilities',
              additionalProperties: { type: 'number', minimum: 0, maximum: 1 },
              propertyNames: { pattern: '^(0|[1-9][0-9]*)$' },
            },
            confidence: { type: 'number', minimum: 0, maximum: 1, title: 'Confidence' },
          },
        },
        Usage: {
          title: 'Usage',
          type: 'object',
          required: ['input_tokens', 'output_tokens'],
          properties: {
            input_tokens: { type: 'integer', title: 'Input Tokens', description: 'Billable input tokens.' },
            output_tokens: { type: 'integer', title: 'Output Tokens', description: 'Output tokens; free of charge.' },
          },
        },
        ModelMetadata: {
          title: 'ModelMetadata',
          type: 'object',
          required: ['name', 'description', 'release_date'],
          properties: {
            name: { type: 'string', title: 'Name' },
            description: { type: 'string', title: 'Description' },
            release_date: { type: 'string', format: 'date', title: 'Release Date' },
          },
        },
        ModelMetadataList: {
          title: 'ModelMetadataList',
          type: 'object',
          required: ['models'],
          properties: { models: { type: 'array', items: ref('ModelMetadata'), title: 'Models' } },
        },
        ValidationError: {
          title: 'ValidationError',
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, title: 'Location' },
            msg: { type: 'string', title: 'Message' },
            type: { type: 'string', title: 'Error Type' },
            input: { title: 'Input' },
            ctx: { type: 'object', title: 'Context' },
          },
        },
        HTTPValidationError: {
          title: 'HTTPValidationError',
          type: 'object',
          properties: { detail: { type: 'array', items: ref('ValidationError'), title: 'Detail' } },
        },
        ErrorResponse: {
          title: 'ErrorResponse',
          type: 'object',
          required: ['error'],
          description: 'Body of every error status other than 422 (the interface leaves their shape open).',
          properties: {
            error: {
              type: 'object',
              required: ['type', 'code', 'message', 'request_id'],
              additionalProperties: true,
              properties: {
                type: {
                  type: 'string',
                  enum: [
                    'invalid_request_error',
                    'authentication_error',
                    'permission_error',
                    'not_found_error',
                    'request_timeout_error',
                    'timeout_error',
                    'request_too_large_error',
                    'unsupported_media_type_error',
                    'rate_limit_error',
                    'api_error',
                    'service_unavailable_error',
                    'overloaded_error',
                  ],
                },
                code: { type: 'string', description: 'Stable machine-readable reason.' },
                message: { type: 'string' },
                request_id: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
              },
            },
          },
        },
      },
    },
  };
}
