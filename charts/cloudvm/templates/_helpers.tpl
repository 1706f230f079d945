{{/*
cloudvm.labels: the labels of every object, the chart's own beside
.Values.labels. Only prefixed keys are the chart's: Config Connector copies
unprefixed labels to GCP, whose label rules are narrower.
*/}}
{{- define "cloudvm.labels" -}}
{{- $own := dict "app.kubernetes.io/name" "cloudvm" "app.kubernetes.io/instance" .Release.Name "app.kubernetes.io/managed-by" "meridian" -}}
{{- toYaml (merge (deepCopy .Values.labels) $own) -}}
{{- end -}}

{{/*
cloudvm.arch: "arm64" when the instance type has Arm processors, else
"amd64".
*/}}
{{- define "cloudvm.arch" -}}
{{- if regexMatch (required "arm64InstanceTypes lacks the provider" (index .Values.arm64InstanceTypes .Values.provider)) .Values.instanceType -}}
arm64
{{- else -}}
amd64
{{- end -}}
{{- end -}}

{{/*
cloudvm.image: the provider's image of the image family for the instance
type's architecture (a string, or Azure's image reference as a dict).
*/}}
{{- define "cloudvm.image" -}}
{{- $families := required "images lacks the provider" (index .Values.images .Values.provider) -}}
{{- $family := required (printf "images.%s has no image family %q" .Values.provider .Values.image) (index $families .Values.image) -}}
{{- toJson (required "image family lacks the architecture" (index $family (include "cloudvm.arch" .))) -}}
{{- end -}}

{{/*
cloudvm.name: the name of one of the VM's objects, the release name with a
suffix (vmrender checks each provider's length limits before rendering).
*/}}
{{- define "cloudvm.name" -}}
{{- printf "%s-%s" .root.Release.Name .suffix -}}
{{- end -}}

{{/*
cloudvm.cloudInit: cloud-config that authorises the SSH key for the admin
user, for providers that take the key as user data.
*/}}
{{- define "cloudvm.cloudInit" -}}
#cloud-config
users:
  - default
  - name: {{ toJson .Values.adminUsername }}
    shell: /bin/bash
    sudo: "ALL=(ALL) NOPASSWD:ALL"
    ssh_authorized_keys:
      - {{ toJson .Values.sshPublicKey }}
{{- end -}}

{{/*
cloudvm.azureAnnotations: the annotations block of an ASO object; the
credential is the Secret's name only (ASO reads it in the object's
namespace).
*/}}
{{- define "cloudvm.azureAnnotations" -}}
{{- if .Values.credentialsSecretName -}}
annotations:
  serviceoperator.azure.com/credential-from: {{ toJson .Values.credentialsSecretName }}
{{- end -}}
{{- end -}}
