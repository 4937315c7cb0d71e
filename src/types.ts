/**
 * Wire types of the question-evaluation interface, named as in its specification.
 * These are the shapes that cross the library boundary and the HTTP boundary alike.
 * @module
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object with arbitrary properties. */
export type JsonObject = { [key: string]: JsonValue };

/** The content all questions refer to: a string, a JSON object or a JSON array. */
export type State = string | JsonObject | JsonValue[];

/** Free-form text or structured content used by instructions and criteria. */
export type Content = string | JsonObject | JsonValue[];

/** What the model should decide, rate or answer yes/no about. May be absent or null. */
export type Instructions = Content | null;

/** Clarifies what counts as yes (`true`) and no (`false`) for a noul question. */
export interface NoulCriteria {
  /** What counts as a yes (a value near 1). */
  true?: Content | null;
  /** What counts as a no (a value near 0). */
  false?: Content | null;
}

/** A yes/no question, answered as a probability of yes. */
export interface NoulQuestion {
  /** Discriminator. */
  type: 'noul';
  /** The yes/no question or statement to evaluate. */
  instructions?: Instructions;
  /** Clarifies what counts as yes and no. */
  criteria?: NoulCriteria | null;
}

/** Picks one option from a caller-defined set (at most 255 options). */
export interface ChoiceQuestion {
  /** Discriminator. */
  type: 'choice';
  /** What the model should decide. */
  instructions?: Instructions;
  /** Map from option name to its description; null means "interpreted by its name alone". */
  criteria: Record<string, Content | null>;
}

/** Rates the state on an ordered rubric; an item's zero-based position is its level (1 to 10 levels). */
export interface ScoreQuestion {
  /** Discriminator. */
  type: 'score';
  /** What the model should rate. */
  instructions?: Instructions;
  /** Ordered level descriptions; an item's zero-based position is its level. Null items are not allowed. */
  criteria: Content[];
}

/** A question: tagged union on `type`. */
export type Question = NoulQuestion | ChoiceQuestion | ScoreQuestion;

/** The question types, in the order the specification lists them. */
export type QuestionType = Question['type'];

/** Map from caller-chosen question id to question. */
export type Questions = Record<string, Question>;

/** Request body of `POST /v1/systemone`. */
export interface SystemOneRequest {
  /** The content all questions refer to. */
  state: State;
  /** A model alias (`evalmodel-latest`, `evalmodel-preview`) or versioned id. */
  model: string;
  /** The questions, keyed by caller-chosen ids (at least one). Ids are returned as answer keys and never reach the model. */
  questions: Questions;
}

/** Answer to a noul question: the probability of yes. Has no confidence field. */
export interface NoulAnswer {
  /** Discriminator, equal to the question's. */
  type: 'noul';
  /** Probability of yes, in [0, 1]. */
  noul: number;
}

/** Answer to a choice question. */
export interface ChoiceAnswer {
  /** Discriminator, equal to the question's. */
  type: 'choice';
  /** The option with the highest probability (ties go to the earlier option). */
  choice: string;
  /** One entry for every option; values sum to 1. */
  probabilities: Record<string, number>;
  /** (p_max - 1/k) / (1 - 1/k), in [0, 1]. */
  confidence: number;
}

/** Answer to a score question. */
export interface ScoreAnswer {
  /** Discriminator, equal to the question's. */
  type: 'score';
  /** Sum over levels of level x probability. */
  score: number;
  /** Level number as a string ("0", "1", ...) to the question's description of that level. */
  legend: Record<string, Content>;
  /** Level number as a string to probability; sums to 1. */
  probabilities: Record<string, number>;
  /** 1 - (sum_i p_i |i - m|) / MAD, clipped to [0, 1]. */
  confidence: number;
}

/** An answer: tagged union on `type`, equal to its question's type. */
export type Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer;

/** Token usage of one evaluation. */
export interface Usage {
  /** Tokens of the state (once) plus each question's rendered tokens. */
  input_tokens: number;
  /** Always 0: the engine produces judgements, not text. */
  output_tokens: number;
}

/** 200 body of `POST /v1/systemone`. */
export interface SystemOneResponse {
  /** The versioned model id that answered, even when an alias was sent. */
  model: string;
  /** Exactly one answer per question, under the question's id. */
  answers: Record<string, Answer>;
  /** Token usage of this evaluation. */
  usage: Usage;
}

/** One entry of the model listing. */
export interface ModelMetadata {
  /** Name accepted by the `model` field. */
  name: string;
  /** Human-readable description. */
  description: string;
  /** `YYYY-MM-DD`. */
  release_date: string;
}

/** 200 body of `GET /v1/models`. */
export interface ModelMetadataList {
  /** One entry per name the caller may send. */
  models: ModelMetadata[];
}

/** One validation failure, pydantic-v2 style. */
export interface ValidationError {
  /** Path to the invalid value: `"body"`, then field names and array indices. */
  loc: (string | number)[];
  /** Human-readable explanation. */
  msg: string;
  /** Machine-readable code, e.g. `missing`, `union_tag_invalid`, `too_long`. */
  type: string;
  /** The input value that failed. */
  input?: unknown;
  /** Extra context for the failure. */
  ctx?: Record<string, unknown>;
}

/** 422 body. */
export interface HTTPValidationError {
  /** Every validation failure of the request. */
  detail: ValidationError[];
}
