// Team input: what a team, a member and a group must be, each refusal naming
// its field, and how a team reads in the API. (Team creation basics and the
// role rules: team-roles.test.ts.)
import { zodProblems } from '../../../lib/model/errors.js';
import {
  MemberChanges,
  memberId,
  NewGroupInput,
  NewMemberInput,
  NewTeamInput,
  TeamChanges,
  teamJson,
  userTeamJson,
  type TeamDoc,
} from '../../../lib/model/teams.js';

const problems = (
  schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } },
  body: unknown,
) => {
  const r = schema.safeParse(body);
  return r.success ? [] : zodProblems(r.error!.issues);
};

describe('NewTeamInput and TeamChanges', () => {
  it('fills in the defaults of a new team', () => {
    expect(NewTeamInput.parse({ name: ' Core ', slug: 'core-1' })).toEqual({
      name: 'Core',
      slug: 'core-1',
      description: '',
      parent_id: null,
      member_groups_enabled: false,
    });
  });

  it.each<[string, unknown, string]>([
    ['a blank name', { name: '  ', slug: 'a' }, 'name: must not be empty'],
    ['a long name', { name: 'n'.repeat(101), slug: 'a' }, 'name: must be at most 100 characters'],
    ['a slug ending in a hyphen', { name: 'A', slug: 'a-' }, 'slug: must be 1 to 63 lowercase letters, digits and inner hyphens'],
    ['a 64-character slug', { name: 'A', slug: 'a'.repeat(64) }, 'slug: must be 1 to 63 lowercase letters, digits and inner hyphens'],
    ['a long description', { name: 'A', slug: 'a', description: 'd'.repeat(501) }, 'description: must be at most 500 characters'],
    ['a parent id with a slash', { name: 'A', slug: 'a', parent_id: 'a/b' }, 'parent_id: must be a team id'],
  ])('refuses %s', (_name, body, problem) => {
    expect(problems(NewTeamInput, body)).toEqual([problem]);
  });

  it('changes at least one setting, and moves a team to the top with parent_id null', () => {
    expect(problems(TeamChanges, {})).toEqual(['name at least one setting to change']);
    expect(TeamChanges.parse({ parent_id: null })).toEqual({ parent_id: null });
    expect(problems(TeamChanges, { owner: 'u1' })).toEqual(['Unrecognized key: "owner"', 'name at least one setting to change']);
  });
});

describe('members and groups', () => {
  it('add a member by id, email or username, as member by default', () => {
    expect(NewMemberInput.parse({ user: ' ada@example.com ' })).toEqual({ user: 'ada@example.com', role: 'member', groups: [] });
    expect(memberId('t1', 'u1')).toBe('t1:u1');
  });

  it.each<[string, unknown, unknown, string]>([
    ['no user', NewMemberInput, { user: ' ' }, 'user: must name a user (id, email or username)'],
    ['an unknown role', NewMemberInput, { user: 'ada', role: 'boss' }, 'role: must be one of member, admin, co-owner, owner'],
    ['a group slug in capitals', NewMemberInput, { user: 'ada', groups: ['Ops'] }, 'groups.0: must be 1 to 63 lowercase letters, digits and inner hyphens'],
    ['a change of nothing', MemberChanges, {}, 'name a role or groups to change'],
    ['a group without a name', NewGroupInput, { slug: 'ops', name: '' }, 'name: must not be empty'],
  ])('refuse %s', (_name, schema, body, problem) => {
    expect(problems(schema as typeof NewMemberInput, body)).toEqual([problem]);
  });

  it('change a member’s role or groups', () => {
    expect(MemberChanges.parse({ role: 'admin' })).toEqual({ role: 'admin' });
    expect(MemberChanges.parse({ groups: [] })).toEqual({ groups: [] });
  });
});

describe('teamJson and userTeamJson', () => {
  const team: TeamDoc = {
    _id: 't1',
    name: 'Core',
    slug: 'core',
    description: 'd',
    parentId: null,
    memberGroupsEnabled: true,
    groups: [{ slug: 'ops', name: 'Operations' }],
    createdAt: new Date('2025-01-01T00:00:00Z'),
    updatedAt: new Date('2025-01-02T00:00:00Z'),
  };

  it('show a team, and the caller’s standing in it', () => {
    const json = {
      id: 't1',
      name: 'Core',
      slug: 'core',
      description: 'd',
      parent_id: null,
      member_groups_enabled: true,
      groups: [{ slug: 'ops', name: 'Operations' }],
      created_at: '2025-01-01T00:00:00.000Z',
    };
    expect(teamJson(team)).toEqual(json);
    expect(userTeamJson({ team, role: 'admin', groups: ['ops'], direct: false, distance: 1 })).toEqual({
      ...json,
      role: 'admin',
      my_groups: ['ops'],
      inherited: true,
    });
    expect(userTeamJson({ team, role: 'owner', groups: [], direct: true, distance: 0 }).inherited).toBe(false);
  });
});
