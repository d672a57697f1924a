/**
 * The category tree, in one place: every question about ancestry is answered here from
 * the flat `{ _id, parent }` records. Pure; tolerant of cycles in stored data (each node is visited
 * once), so a corrupt tree cannot hang a request.
 */
export interface TreeNode {
  _id: number;
  parent: number;
}

function childrenIndex(nodes: readonly TreeNode[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const node of nodes) {
    const list = children.get(node.parent) ?? [];
    list.push(node._id);
    children.set(node.parent, list);
  }
  return children;
}

/** The given categories and all their descendants (the event list's `categories` filter). */
export function withDescendants(ids: readonly number[], nodes: readonly TreeNode[]): number[] {
  const children = childrenIndex(nodes);
  const seen = new Set<number>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop() as number;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(children.get(id) ?? []));
  }
  return [...seen];
}

/** Would making `parent` the parent of `id` create a cycle (itself or one of its descendants)? */
export function createsCycle(id: number, parent: number, nodes: readonly TreeNode[]): boolean {
  return parent !== 0 && withDescendants([id], nodes).includes(parent);
}

/** Direct children of a category (re-parented when it is deleted). */
export function childrenOf(id: number, nodes: readonly TreeNode[]): number[] {
  return childrenIndex(nodes).get(id) ?? [];
}
