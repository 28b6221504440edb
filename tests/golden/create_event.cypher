CREATE (e:Event)
SET e = $props, e.tenant = $tenant
// params
{
  "props": {
    "id": "e1"
  },
  "tenant": "acme"
}
