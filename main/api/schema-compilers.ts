import AjvCompiler from '@fastify/ajv-compiler';
import fastJsonStringify, { type Options as SerializerOptions } from 'fast-json-stringify';
import type { FastifyServerOptions } from 'fastify';

type Serialize = (doc: unknown) => string;

/**
 * The schema compilers of every server this process builds, shared by them all: fastify
 * makes new ones for each server, and compiling every route's validators and serialisers
 * again was two thirds of the CPU of building one (some 90 of 133 ms). Routes' schemas are
 * module constants, so a second server (a test's, a restarted service's) finds them compiled.
 * The validators: fastify's own, whose pool keeps one Ajv per set of shared schemas and
 * options, and Ajv keeps what it compiled by schema object. The serialisers: one per schema
 * object, per set of shared schemas and options; a schema made anew for each server (a
 * response wrapped at registration) is compiled anew and forgotten with it.
 */
const validators = AjvCompiler();
const serializers = new Map<string, WeakMap<object, Serialize>>();

function buildSerializer(externalSchemas: unknown, options: SerializerOptions = {}) {
  const key = JSON.stringify([externalSchemas, options]);
  let compiled = serializers.get(key);
  if (!compiled) serializers.set(key, (compiled = new WeakMap()));
  const known = compiled;
  return ({ schema }: { schema?: unknown }): Serialize => {
    const route = schema as object;
    let serialize = known.get(route);
    if (!serialize) {
      serialize = fastJsonStringify(route, { ...options, schema: externalSchemas as SerializerOptions['schema'] });
      known.set(route, serialize);
    }
    return serialize;
  };
}

export const SHARED_COMPILERS: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: validators, buildSerializer },
};
