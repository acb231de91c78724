import AjvCompiler from '@fastify/ajv-compiler';
import fastJsonStringify, { type Options as SerializerOptions } from 'fast-json-stringify';
import type { FastifyServerOptions } from 'fastify';

type Serialize = (doc: unknown) => string;
/** A validator as fastify calls it; Ajv's take the parent of the data as `context`. */
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type ValidatorFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => Validate;

/**
 * The schema compilers of every server this process builds, shared by them all: fastify
 * makes new ones for each server, and compiling every route's validators and serialisers
 * again was two thirds of the CPU of building one (some 90 of 133 ms). Routes' schemas are
 * module constants, so a second server (a test's, a restarted service's) finds them compiled.
 * The validators: fastify's own, whose pool keeps one Ajv per set of shared schemas and
 * options, and Ajv keeps what it compiled by schema object. The serialisers: one per schema
 * object, per set of shared schemas and options; a schema made anew for each server (a
 * response wrapped at registration) is compiled anew and forgotten with it.
 *
 * Each is compiled when a request first needs it, not as the server starts: a service
 * answers a few of its hundred-odd routes' schemas in a session, and starting compiled
 * them all (some 100 ms of the 0.6 s of CPU a start takes, and the memory they hold).
 */
const validators = AjvCompiler() as unknown as ValidatorFactory;

function buildValidator(externalSchemas: unknown, options: unknown) {
  const compilerFor = validators(externalSchemas, options);
  return (route: unknown): Validate => {
    let validate: Validate | undefined;
    const lazy: Validate = (data, context) => {
      validate ??= compilerFor(route);
      const valid = validate(data, context);
      lazy.errors = validate.errors;
      return valid;
    };
    // fastify hands the data's parent (where Ajv sets a default for the whole body) only to a
    // validator with a schemaEnv, as Ajv's have.
    lazy.schemaEnv = true;
    return lazy;
  };
}
const serializers = new Map<string, WeakMap<object, Serialize>>();

function buildSerializer(externalSchemas: unknown, options: SerializerOptions = {}) {
  const key = JSON.stringify([externalSchemas, options]);
  let compiled = serializers.get(key);
  if (!compiled) serializers.set(key, (compiled = new WeakMap()));
  const known = compiled;
  return ({ schema }: { schema?: unknown }): Serialize => {
    const route = schema as object;
    let serialize = known.get(route);
    return (doc) => {
      if (!serialize) {
        serialize = known.get(route) ?? fastJsonStringify(route, { ...options, schema: externalSchemas as SerializerOptions['schema'] });
        known.set(route, serialize);
      }
      return serialize(doc);
    };
  };
}

export const SHARED_COMPILERS: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: buildValidator as never, buildSerializer },
};
