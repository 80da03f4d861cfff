// The function and route factories with this service's guards: `auth: 'bearer'` is requireAuth (a JWT), `auth: 'operator'` requireOperator.
import { functionFactory } from '../http/function-factory.ts';
import { operatorGuard } from './operator.ts';
import { bearerGuard } from './require-auth.ts';

export const { defineFunction, defineRoute } = functionFactory({ bearer: bearerGuard, operator: operatorGuard });
